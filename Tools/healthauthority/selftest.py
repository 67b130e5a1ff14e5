#!/usr/bin/env python3
"""Self-test of the test health authority: starts healthauthority.py, drives every refusal rule and every
injected fault over HTTP, publishes keys and checks the signed export it serves (signature, keys, index),
with the project's own decoder too when an enbeacon binary is at hand.

    python3 Tools/healthauthority/selftest.py [--enbeacon PATH] [-v]

Without --enbeacon, .build/debug/enbeacon (then .build/release/enbeacon) is used if it exists; otherwise that
one check is skipped, saying so. Exit status 0 when every check passed.
"""

import argparse
import base64
import hashlib
import hmac
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import zipfile

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
START = 1795867200  # 2026-11-28T12:00:00Z: the servers' clock at the start, so days are fixed
DAY = 144


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


# ---------------------------------------------------------------------------------------------------------
# HTTP, by hand where the test needs control over headers and bodies.

class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def code(self):
        try:
            document = self.json()
        except ValueError:
            return None
        return document.get("errorCode") or document.get("code")


def http_request(url, method="POST", body=b"", headers=None, timeout=10):
    host_port, _, path = url.removeprefix("http://").partition("/")
    host, _, port = host_port.partition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        connection.request(method, "/" + path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


class Servers:
    def __init__(self, ready):
        self.ready = ready

    def __getattr__(self, name):
        return self.ready[name]

    def control(self, method, path, body=None):
        answer = http_request(self.control_url + path, method, json.dumps(body or {}) if method == "POST" else b"",
                              {"Content-Type": "application/json"})
        if answer.status != 200:
            raise Failure(f"control {path}: {answer.status} {answer.body!r}")
        return answer.json()

    def issue(self, **spec):
        return self.control("POST", "/_test/codes", spec)["code"]

    def verify(self, body, api_key=None, content_type="application/json", extra=None):
        headers = {"Content-Type": content_type, "X-API-Key": self.api_key if api_key is None else api_key}
        headers.update(extra or {})
        return http_request(self.verify_url, body=body, headers=headers)

    def certificate(self, body, extra=None):
        headers = {"Content-Type": "application/json", "X-API-Key": self.api_key}
        headers.update(extra or {})
        return http_request(self.certificate_url, body=body, headers=headers)

    def publish(self, body, content_type="application/json", extra=None):
        headers = {"Content-Type": content_type}
        headers.update(extra or {})
        return http_request(self.publish_url, body=body, headers=headers)

    def requests(self, since=0):
        return self.control("GET", f"/_test/requests?since={since}")["requests"]

    def last_seq(self):
        records = self.requests()
        return records[-1]["seq"] if records else 0

    def now_interval(self):
        return int(self.control("GET", "/_test/clock")["now"]) // 600


# ---------------------------------------------------------------------------------------------------------
# What a device does: keys, the HMAC, the whole flow.

def make_keys(servers, days_back, period=144, risk=0):
    """One fresh key for each of `days_back` UTC days before today (1 = yesterday)."""
    today = servers.now_interval() // DAY * DAY
    return [{"key": base64.b64encode(os.urandom(16)).decode(), "rollingStartNumber": today - d * DAY,
             "rollingPeriod": period, "transmissionRisk": risk} for d in days_back]


def ekeyhmac(secret, keys, fields=4):
    parts = sorted(".".join([k["key"], str(k["rollingStartNumber"]), str(k["rollingPeriod"])]
                            + ([str(k["transmissionRisk"])] if fields == 4 else [])) for k in keys)
    return base64.b64encode(hmac.new(secret, ",".join(parts).encode(), hashlib.sha256).digest()).decode()


def token_for(servers, **code_spec):
    answer = servers.verify({"code": servers.issue(**code_spec), "padding": "x" * 600})
    expect(answer.status == 200, f"verify: {answer.status} {answer.body[:200]!r}")
    return answer.json()["token"]


def certificate_for(servers, keys, secret, fields=4, **code_spec):
    token = token_for(servers, **code_spec)
    answer = servers.certificate({"token": token, "ekeyhmac": ekeyhmac(secret, keys, fields), "padding": "y"})
    expect(answer.status == 200, f"certificate: {answer.status} {answer.body[:200]!r}")
    return answer.json()["certificate"]


def publish_body(servers, keys, certificate, secret, **extra):
    body = {"temporaryExposureKeys": keys, "healthAuthorityID": servers.health_authority_id,
            "verificationPayload": certificate, "hmacKey": base64.b64encode(secret).decode(),
            "traveler": False, "padding": "z" * 100}
    body.update(extra)
    return body


def share(servers, keys, **extra):
    secret = os.urandom(32)
    certificate = certificate_for(servers, keys, secret)
    return servers.publish(publish_body(servers, keys, certificate, secret, **extra))


def expect_refusal(answer, status, code):
    expect(answer.status == status and answer.code() == code,
           f"expected {status} {code}, got {answer.status} {answer.code()}: {answer.body[:300]!r}")


# ---------------------------------------------------------------------------------------------------------
# The export, read independently.

def read_varint(data, position):
    value, shift = 0, 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, position


def fields(data):
    position, out = 0, []
    while position < len(data):
        tag, position = read_varint(data, position)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, position = read_varint(data, position)
        elif wire == 1:
            value, position = int.from_bytes(data[position:position + 8], "little"), position + 8
        elif wire == 2:
            length, position = read_varint(data, position)
            value, position = data[position:position + length], position + length
        else:
            raise Failure(f"unexpected wire type {wire}")
        out.append((number, value))
    return out


def decode_export(archive_bytes, public_pem):
    with zipfile.ZipFile(io.BytesIO(archive_bytes)) as archive:
        expect(sorted(archive.namelist()) == ["export.bin", "export.sig"], f"entries {archive.namelist()}")
        binary, sig = archive.read("export.bin"), archive.read("export.sig")
    expect(binary[:16] == b"EK Export v1    ", "export.bin header")
    signatures = [dict(fields(value)) for number, value in fields(sig) if number == 1]
    expect(len(signatures) == 1, "one signature")
    public_key = serialization.load_pem_public_key(public_pem)
    try:
        public_key.verify(signatures[0][4], binary, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Failure("export.sig does not verify over export.bin") from None
    header, keys, revised = {}, [], []
    for number, value in fields(binary[16:]):
        if number in (7, 8):
            key = dict(fields(value))
            record = {"key": base64.b64encode(key[1]).decode(), "rollingStartNumber": key[3],
                      "rollingPeriod": key.get(4, 144), "transmissionRisk": key.get(2), "reportType": key.get(5),
                      "daysSinceOnset": (key[6] >> 1) ^ -(key[6] & 1) if 6 in key else None}
            (keys if number == 7 else revised).append(record)
        else:
            header[number] = value
    return header, keys, revised


def index_lines(servers):
    answer = http_request(servers.index_url, "GET")
    expect(answer.status == 200, f"index.txt: {answer.status}")
    return answer.body.decode("ascii").split()


# ---------------------------------------------------------------------------------------------------------
# The checks.

CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


@check
def verify_answers_a_token_with_the_code_facts(s):
    code = s.issue(testType="likely", symptomDate="2026-11-24", testDate="2026-11-26")
    answer = s.verify({"code": code, "accept": ["confirmed", "likely"], "padding": "p"})
    expect(answer.status == 200, f"{answer.status} {answer.body!r}")
    document = answer.json()
    expect(document["testtype"] == "likely" and document["symptomDate"] == "2026-11-24"
           and document["testDate"] == "2026-11-26", f"answer {document}")
    expect(document["token"].count(".") == 2, "token is a JWT")
    expect(len(document["padding"]) >= 1024, "answer padded with at least 1 KB")
    long_code = s.issue(long=True)
    expect(len(long_code) == 16 and long_code.isalnum() and long_code == long_code.lower(), f"long {long_code}")
    expect(s.verify({"code": long_code}).status == 200, "long code verifies")


@check
def verify_refuses_transport_errors(s):
    code = s.issue()
    expect_refusal(s.verify({"code": code}, content_type="text/plain"), 400, "unparsable_request")
    expect_refusal(s.verify({"code": code, "colour": "red"}), 400, "unparsable_request")
    expect_refusal(s.verify('{"code": "' + code + '"'), 400, "unparsable_request")
    expect_refusal(s.verify({"code": code, "padding": "x" * 64_000}), 400, "unparsable_request")
    expect_refusal(s.verify({"code": 12345678}), 400, "unparsable_request")
    expect(s.verify({"code": code}).status == 200, "the code was not used up by refused requests")


@check
def verify_refuses_a_wrong_or_missing_api_key(s):
    code = s.issue()
    answer = s.verify({"code": code}, api_key="not-the-key")
    expect(answer.status == 401, f"wrong key: {answer.status}")
    answer = http_request(s.verify_url, body={"code": code}, headers={"Content-Type": "application/json"})
    expect(answer.status == 401, f"missing key: {answer.status}")
    expect(s.verify({"code": code}).status == 200, "the code still works with the right key")


@check
def verify_refuses_unknown_used_and_expired_codes(s):
    expect_refusal(s.verify({"code": "00000000"}), 400, "code_invalid")
    expect_refusal(s.verify({"code": s.issue(state="used")}), 400, "code_invalid")
    code = s.issue()
    expect(s.verify({"code": code}).status == 200, "first use")
    expect_refusal(s.verify({"code": code}), 400, "code_invalid")
    expect_refusal(s.verify({"code": s.issue(state="expired")}), 400, "code_expired")
    code = s.issue(expiresIn=600)
    s.control("POST", "/_test/clock", {"advance": 601})
    expect_refusal(s.verify({"code": code}), 400, "code_expired")
    code = s.issue()
    s.control("POST", "/_test/code-state", {"code": code, "state": "expired"})
    expect_refusal(s.verify({"code": code}), 400, "code_expired")


@check
def verify_checks_accepted_test_types(s):
    expect_refusal(s.verify({"code": s.issue(), "accept": ["positive"]}), 400, "invalid_test_type")
    code = s.issue(testType="likely")
    expect_refusal(s.verify({"code": code, "accept": ["confirmed"]}), 412, "unsupported_test_type")
    expect(s.verify({"code": code, "accept": ["likely"]}).status == 200, "the code was not used up by the 412")
    expect_refusal(s.verify({"code": s.issue(testType="negative"), "accept": ["confirmed", "likely"]}),
                   412, "unsupported_test_type")
    expect(s.verify({"code": s.issue(testType="negative"), "accept": ["negative"]}).status == 200,
           "negative admits all three")


@check
def verify_method_and_path(s):
    expect(http_request(s.verify_url, "GET", headers={"X-API-Key": s.api_key}).status == 405, "GET refused")
    expect(http_request(s.verification_url + "/api/nothing", body={}).status == 404, "unknown path")


@check
def chaff_is_answered_without_effect(s):
    code = s.issue()
    answer = s.verify({"code": code, "padding": "c" * 900}, extra={"X-Chaff": "1"})
    expect(answer.status == 200 and len(answer.body) >= 1024, f"chaff: {answer.status}")
    try:
        json.loads(answer.body)
        raise Failure("the verification server's chaff answer must not be JSON")
    except ValueError:
        pass
    expect(s.verify({"code": code}, api_key="wrong", extra={"X-Chaff": "1"}).status == 401, "chaff needs the key")
    answer = s.certificate({"token": "x", "ekeyhmac": "y"}, extra={"X-Chaff": "1"})
    expect(answer.status == 200, f"certificate chaff: {answer.status}")
    expect(s.verify({"code": code}).status == 200, "the code chaff carried was not used")
    stored = len(s.control("GET", "/_test/published")["keys"])
    answer = s.publish({"temporaryExposureKeys": []}, content_type="text/plain", extra={"X-Chaff": "1"})
    expect(answer.status == 200 and "padding" in answer.json(), f"publish chaff: {answer.status}")
    expect(len(s.control("GET", "/_test/published")["keys"]) == stored, "chaff stored nothing")
    chaff = [r for r in s.requests() if r["chaff"]]
    expect(len(chaff) == 4, f"the record marks chaff: {len(chaff)}")


@check
def certificate_refusals(s):
    secret = os.urandom(32)
    keys = make_keys(s, [1])
    token = token_for(s)
    good = ekeyhmac(secret, keys)
    expect_refusal(s.certificate({"token": token, "ekeyhmac": "not base64!"}), 400, "hmac_invalid")
    expect_refusal(s.certificate({"token": token, "ekeyhmac": base64.b64encode(b"short").decode()}),
                   400, "hmac_invalid")
    expect_refusal(s.certificate({"token": token, "ekeyhmac": good, "extra": 1}), 400, "token_invalid")
    expect_refusal(s.certificate({"token": "a.b.c", "ekeyhmac": good}), 400, "token_invalid")
    head, claims, signature = token.split(".")
    forged = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    forged["exp"] += 86400
    forged_claims = base64.urlsafe_b64encode(json.dumps(forged).encode()).rstrip(b"=").decode()
    expect_refusal(s.certificate({"token": f"{head}.{forged_claims}.{signature}", "ekeyhmac": good}),
                   400, "token_invalid")
    answer = s.certificate({"token": token, "ekeyhmac": good})
    expect(answer.status == 200, f"first use: {answer.status} {answer.body[:200]!r}")
    expect_refusal(s.certificate({"token": token, "ekeyhmac": good}), 400, "token_expired")
    token = token_for(s)
    s.control("POST", "/_test/tokens/expire", {})
    expect_refusal(s.certificate({"token": token, "ekeyhmac": good}), 400, "token_expired")
    token = token_for(s)
    s.control("POST", "/_test/clock", {"advance": 24 * 3600 + 1})
    expect_refusal(s.certificate({"token": token, "ekeyhmac": good}), 400, "token_invalid")


@check
def publish_then_export_holds_exactly_the_keys(s):
    keys = make_keys(s, [3, 2, 1])
    answer = share(s, keys)
    expect(answer.status == 200, f"publish: {answer.status} {answer.body[:300]!r}")
    document = answer.json()
    expect(document["insertedExposures"] == 3 and document["revisionToken"] and "code" not in document,
           f"answer {document}")
    expect(len(document["padding"]) >= 1024, "answer padded")
    lines = index_lines(s)
    expect(lines and lines[-1].startswith("exposureKeyExport-US/") and lines[-1].endswith("-00001.zip"),
           f"index {lines}")
    archive = http_request(s.base_url + lines[-1], "GET")
    expect(archive.status == 200, f"export: {archive.status}")
    with open(s.public_key, "rb") as f:
        header, exported, revised = decode_export(archive.body, f.read())
    expect(header[3] == b"US" and header[4] == 1 and header[5] == 1, f"header {header}")
    expect(sorted(k["key"] for k in exported) == sorted(k["key"] for k in keys), "exactly the published keys")
    expect(all(k["transmissionRisk"] == 2 and k["reportType"] == 1 for k in exported), "confirmed: risk 2")
    expect(not revised, "no revisions")
    s.exported_file = archive.body


@check
def the_projects_decoder_accepts_the_export(s):
    enbeacon = s.enbeacon
    if not enbeacon:
        print("     skipped: no enbeacon binary (give --enbeacon PATH or swift build first)")
        return
    with tempfile.NamedTemporaryFile(suffix=".zip") as f:
        f.write(s.exported_file)
        f.flush()
        verify = subprocess.run([enbeacon, "export", "verify", f.name, "--key", s.public_key, "--key-id", s.key_id,
                                 "--key-version", s.key_version], capture_output=True, text=True, timeout=60)
        expect(verify.returncode == 0, f"enbeacon export verify: {verify.returncode} {verify.stderr.strip()}")
        decode = subprocess.run([enbeacon, "export", "decode", f.name, "--json"], capture_output=True, text=True,
                                timeout=60)
        expect(decode.returncode == 0, f"enbeacon export decode: {decode.returncode} {decode.stderr.strip()}")
        document = json.loads(decode.stdout)
        expect(len(document["keys"]) == 3, f"enbeacon decoded {len(document['keys'])} keys")


@check
def publish_transport_refusals(s):
    keys = make_keys(s, [1])
    secret = os.urandom(32)
    body = publish_body(s, keys, certificate_for(s, keys, secret), secret)
    expect_refusal(s.publish(body, content_type="text/plain"), 415, "bad_request")
    expect_refusal(s.publish(dict(body, padding="x" * 64_000)), 413, "bad_request")
    expect_refusal(s.publish(dict(body, regions=["US"])), 400, "bad_request")
    expect_refusal(s.publish(dict(body, temporaryExposureKeys=[dict(keys[0], colour="red")])), 400, "bad_request")
    expect_refusal(s.publish(dict(body, temporaryExposureKeys=[dict(keys[0], rollingPeriod=144.5)])),
                   400, "bad_request")
    expect_refusal(s.publish('{"temporaryExposureKeys": [}'), 400, "bad_request")
    expect(http_request(s.publish_url, "GET").status == 405, "GET refused")
    expect(s.publish(body).status == 200, "the same request, well formed, is accepted")


@check
def publish_refuses_certificates_that_do_not_fit(s):
    keys = make_keys(s, [2, 1])
    secret = os.urandom(32)
    certificate = certificate_for(s, keys, secret)
    expect_refusal(s.publish(publish_body(s, keys, certificate, secret, healthAuthorityID="elsewhere")),
                   401, "unknown_health_authority_id")
    expect_refusal(s.publish(publish_body(s, keys, "a.b.c", secret)),
                   401, "health_authority_verification_certificate_invalid")
    # The same claims and kid, signed by a key the health authority never had.
    head, claims, _ = certificate.split(".")
    other = ec.generate_private_key(ec.SECP256R1())
    der = other.sign(f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    r, s_value = decode_dss_signature(der)
    raw = r.to_bytes(32, "big") + s_value.to_bytes(32, "big")
    forged = f"{head}.{claims}." + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    expect_refusal(s.publish(publish_body(s, keys, forged, secret)),
                   401, "health_authority_verification_certificate_invalid")
    # The HMAC covers exactly the published keys: one more, one fewer, or one changed field all fail.
    extra = make_keys(s, [3])
    for name, changed in [("one more key", extra + keys), ("one key fewer", keys[:1]),
                          ("a changed risk", [dict(keys[0], transmissionRisk=5), keys[1]]),
                          ("a changed period", [dict(keys[0], rollingPeriod=143), keys[1]])]:
        answer = s.publish(publish_body(s, changed, certificate, secret))
        expect(answer.status == 401 and answer.code() == "health_authority_verification_certificate_invalid",
               f"{name}: {answer.status} {answer.code()}")
    expect_refusal(s.publish(publish_body(s, keys, certificate, os.urandom(32))),
                   401, "health_authority_verification_certificate_invalid")
    s.control("POST", "/_test/clock", {"advance": 16 * 60})
    expect_refusal(s.publish(publish_body(s, keys, certificate, secret)),
                   401, "health_authority_verification_certificate_invalid")
    # The three-field form is accepted when every risk is 0.
    keys = make_keys(s, [2, 1])
    secret = os.urandom(32)
    answer = s.publish(publish_body(s, keys, certificate_for(s, keys, secret, fields=3), secret))
    expect(answer.status == 200, f"three-field HMAC: {answer.status} {answer.body[:200]!r}")


@check
def publish_key_count_and_overlap_rules(s):
    today = s.now_interval() // DAY * DAY

    def key(start, period=144):
        return {"key": base64.b64encode(os.urandom(16)).decode(), "rollingStartNumber": start,
                "rollingPeriod": period, "transmissionRisk": 0}

    expect_refusal(share(s, []), 400, "bad_request")
    # 31 keys: 31 distinct, non-overlapping 4-hour keys within the last 15 days.
    many = [key(today - DAY * 14 + 24 * i, 24) for i in range(31)]
    expect_refusal(share(s, many), 400, "bad_request")
    expect(share(s, many[:30]).status == 200, "30 keys are accepted")
    expect_refusal(share(s, [key(today - 2 * DAY), key(today - 2 * DAY + 72)]), 400, "bad_request")
    same_start = [key(today - 3 * DAY, 40), key(today - 3 * DAY, 90), key(today - 3 * DAY, 144)]
    expect(share(s, same_start).status == 200, "three keys may share a start")
    expect_refusal(share(s, [key(today - 4 * DAY, 10 * (i + 1)) for i in range(4)]), 400, "bad_request")


@check
def publish_drops_invalid_keys_with_warnings(s):
    today = s.now_interval() // DAY * DAY
    good = make_keys(s, [1])
    future = {"key": base64.b64encode(os.urandom(16)).decode(), "rollingStartNumber": today + DAY,
              "rollingPeriod": 144, "transmissionRisk": 0}
    expect_refusal(share(s, [future]), 400, "bad_request")
    bad = [future,
           dict(make_keys(s, [16])[0]),
           dict(make_keys(s, [4])[0], rollingPeriod=0),
           dict(make_keys(s, [5])[0], rollingPeriod=145),
           dict(make_keys(s, [6])[0], transmissionRisk=9),
           dict(make_keys(s, [7])[0], key=base64.b64encode(os.urandom(15)).decode())]
    answer = share(s, good + bad)
    expect(answer.status == 200, f"{answer.status} {answer.body[:300]!r}")
    document = answer.json()
    expect(document.get("code") == "partial_failure" and document["insertedExposures"] == 1
           and len(document["warnings"]) == len(bad), f"answer {document}")


@check
def still_valid_keys_are_embargoed(s):
    today = s.now_interval() // DAY * DAY
    key = {"key": base64.b64encode(os.urandom(16)).decode(), "rollingStartNumber": today, "rollingPeriod": 144,
           "transmissionRisk": 0}
    before = index_lines(s)
    answer = share(s, [key])
    expect(answer.status == 200 and answer.json()["insertedExposures"] == 1, f"{answer.status}")
    expect(index_lines(s) == before, "today's key is not exported while it is valid")
    s.control("POST", "/_test/clock", {"now": (today + DAY) * 600 + 3600})
    lines = index_lines(s)
    expect(len(lines) == len(before) + 1, "released an hour after it ended")
    with open(s.public_key, "rb") as f:
        _, exported, _ = decode_export(http_request(s.base_url + lines[-1], "GET").body, f.read())
    expect([k["key"] for k in exported] == [key["key"]], "the new file holds just that key")


@check
def revisions_need_the_token(s):
    keys = make_keys(s, [2, 1])
    secret = os.urandom(32)
    first = s.publish(publish_body(s, keys, certificate_for(s, keys, secret, testType="likely"), secret))
    expect(first.status == 200, f"first: {first.status}")
    token = first.json()["revisionToken"]
    secret = os.urandom(32)
    confirmed = certificate_for(s, keys, secret)
    expect_refusal(s.publish(publish_body(s, keys, confirmed, secret)), 400, "missing_revision_token")
    expect_refusal(s.publish(publish_body(s, keys, confirmed, secret, revisionToken="bm90IGEgdG9rZW4=")),
                   400, "invalid_revision_token")
    answer = s.publish(publish_body(s, keys, confirmed, secret, revisionToken=token))
    expect(answer.status == 200 and answer.json()["insertedExposures"] == 2, f"revision: {answer.body[:200]!r}")
    token = answer.json()["revisionToken"]
    lines = index_lines(s)
    with open(s.public_key, "rb") as f:
        _, _, revised = decode_export(http_request(s.base_url + lines[-1], "GET").body, f.read())
    expect(sorted(k["key"] for k in revised) == sorted(k["key"] for k in keys), "revised keys exported")
    secret = os.urandom(32)
    negative = certificate_for(s, keys, secret, testType="negative")
    expect_refusal(s.publish(publish_body(s, keys, negative, secret, revisionToken=token)),
                   400, "key_already_revised")
    keys = make_keys(s, [3])
    secret = os.urandom(32)
    first = s.publish(publish_body(s, keys, certificate_for(s, keys, secret), secret))
    secret = os.urandom(32)
    expect_refusal(s.publish(publish_body(s, keys, certificate_for(s, keys, secret, testType="likely"), secret,
                                          revisionToken=first.json()["revisionToken"])),
                   400, "invalid_report_type_transition")


@check
def faults_unreachable_for_a_while(s):
    s.control("POST", "/_test/faults", {"server": "verification", "kind": "unreachable", "seconds": 1})
    try:
        s.verify({"code": "1"})
        raise Failure("the verification server answered while unreachable")
    except ConnectionRefusedError:
        pass
    expect(http_request(s.publish_url, "GET").status == 405, "the key server stays up")
    deadline = time.monotonic() + 10
    while True:
        try:
            expect_refusal(s.verify({"code": "1"}), 400, "code_invalid")
            break
        except ConnectionRefusedError:
            expect(time.monotonic() < deadline, "still unreachable 10 s after a 1 s fault")
            time.sleep(0.05)
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "unreachable"})
    try:
        http_request(s.publish_url, "GET")
        raise Failure("the key server answered while unreachable")
    except ConnectionRefusedError:
        pass
    s.control("POST", "/_test/faults/clear", {})
    expect(http_request(s.publish_url, "GET").status == 405, "back after clear-faults")


@check
def faults_status_reset_hang(s):
    keys = make_keys(s, [1])
    secret = os.urandom(32)
    token = token_for(s)
    s.control("POST", "/_test/faults", {"server": "verification", "kind": "status", "status": 503, "count": 2,
                                        "path": "/api/certificate"})
    body = {"token": token, "ekeyhmac": ekeyhmac(secret, keys)}
    for _ in range(2):
        answer = s.certificate(body)
        expect(answer.status == 503 and answer.code() is None, f"503: {answer.status}")
    answer = s.certificate(body)
    expect(answer.status == 200, f"after the 503s the token still works: {answer.status}")
    certificate = answer.json()["certificate"]
    s.control("POST", "/_test/faults", {"server": "verification", "kind": "status", "status": 429, "count": 1,
                                        "retryAfter": 30})
    answer = s.verify({"code": "1"})
    expect_refusal(answer, 429, "maintenance_mode")
    expect(answer.headers.get("retry-after") == "30", "Retry-After")
    s.control("POST", "/_test/faults", {"server": "verification", "kind": "status", "status": 500, "count": 1})
    expect_refusal(s.verify({"code": "1"}), 500, "internal_server_error")
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "status", "status": 500, "count": 1})
    expect_refusal(s.publish(publish_body(s, keys, certificate, secret)), 500, "internal_error")
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "reset", "count": 1})
    try:
        s.publish(publish_body(s, keys, certificate, secret))
        raise Failure("a reset fault answered")
    except (ConnectionResetError, http.client.RemoteDisconnected):
        pass
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "hang", "count": 1})
    try:
        http_request(s.publish_url, body=publish_body(s, keys, certificate, secret),
                     headers={"Content-Type": "application/json"}, timeout=0.5)
        raise Failure("a hang fault answered")
    except socket.timeout:
        pass
    s.control("POST", "/_test/faults/clear", {})
    answer = s.publish(publish_body(s, keys, certificate, secret))
    expect(answer.status == 200, f"publishes once the faults are gone: {answer.status} {answer.body[:200]!r}")


@check
def faults_certificate_rejected_and_partial_failure(s):
    keys = make_keys(s, [3, 2, 1])
    secret = os.urandom(32)
    body = publish_body(s, keys, certificate_for(s, keys, secret), secret)
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "certificate-rejected", "count": 1})
    expect_refusal(s.publish(body), 401, "health_authority_verification_certificate_invalid")
    s.control("POST", "/_test/faults", {"server": "keyserver", "kind": "partial-failure", "count": 1, "drop": 1})
    answer = s.publish(body)
    document = answer.json()
    expect(answer.status == 200 and document.get("code") == "partial_failure" and document["insertedExposures"] == 2
           and len(document["warnings"]) == 1, f"partial: {answer.status} {document}")


@check
def the_record_proves_what_was_and_was_not_sent(s):
    before = s.last_seq()
    s.issue()
    expect(s.requests(before) == [], "issuing a code sends nothing to the API services")
    s.verify({"code": "12345678", "padding": "q" * 10})
    records = s.requests(before)
    expect(len(records) == 1 and records[0]["path"] == "/api/verify" and records[0]["status"] == 400
           and records[0]["errorCode"] == "code_invalid" and json.loads(records[0]["body"])["code"] == "12345678",
           f"record {records}")
    log_lines = open(s.request_log).read().splitlines()
    expect(json.loads(log_lines[-1])["errorCode"] == "code_invalid" and "body" not in json.loads(log_lines[-1]),
           "the log file has the request, without its body")


def start_server(state_dir, *options, stderr=subprocess.DEVNULL, seconds=120):
    """A server (the checks share one; some start their own), its Servers once it listens."""
    process = subprocess.Popen([sys.executable, "-u", os.path.join(HERE, "healthauthority.py"), "serve", "--now",
                                str(START), "--state-dir", state_dir, "--seconds", str(seconds), *options],
                               stdout=subprocess.PIPE, stderr=stderr, text=True)
    line = process.stdout.readline()
    if not line:
        process.kill()
        raise Failure(f"a server in {state_dir} did not start (exit {process.wait()})")
    return process, Servers(json.loads(line))


@check
def kept_records_outlive_a_killed_server(s):
    """--keep-records: after SIGKILL, the next server in the folder knows the last one's tokens, its used
    codes, the keys it stored and their revision token, and still refuses what it refused."""
    with tempfile.TemporaryDirectory() as directory:
        state = os.path.join(directory, "state")
        first, servers = start_server(state, "--keep-records")
        try:
            used_code = servers.issue()
            expect(servers.verify({"code": used_code}).status == 200, "verify on the first server")
            token = token_for(servers)
            keys = make_keys(servers, [2, 1])
            secret = os.urandom(32)
            published = servers.publish(publish_body(servers, keys, certificate_for(servers, keys, secret,
                                                                                    testType="likely"), secret))
            expect(published.status == 200, f"publish on the first server: {published.status}")
        finally:
            first.kill()
            first.wait()
        second, servers = start_server(state, "--keep-records")
        try:
            expect_refusal(servers.verify({"code": used_code}), 400, "code_invalid")
            secret = os.urandom(32)
            answer = servers.certificate({"token": token, "ekeyhmac": ekeyhmac(secret, keys), "padding": "y"})
            expect(answer.status == 200, f"the first server's token: {answer.status} {answer.body[:200]!r}")
            body = publish_body(servers, keys, answer.json()["certificate"], secret)
            expect_refusal(servers.publish(body), 400, "missing_revision_token")
            revised = servers.publish(dict(body, revisionToken=published.json()["revisionToken"]))
            expect(revised.status == 200 and revised.json()["insertedExposures"] == 2,
                   f"the first server's revision token: {revised.status} {revised.body[:200]!r}")
        finally:
            second.kill()
            second.wait()
        third, servers = start_server(state)  # without --keep-records: a server that knows nothing
        try:
            secret = os.urandom(32)
            expect_refusal(servers.certificate({"token": token, "ekeyhmac": ekeyhmac(secret, keys)}), 400,
                           "token_invalid")
        finally:
            third.kill()
            third.wait()


def find_enbeacon(given):
    if given:
        return given
    for build in ("debug", "release"):
        path = os.path.join(ROOT, ".build", build, "enbeacon")
        if os.access(path, os.X_OK):
            return path
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--enbeacon", help="enbeacon binary whose export decoder must accept the exports")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the server's stderr on failure")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as directory:
        request_log = os.path.join(directory, "requests.jsonl")
        stderr = open(os.path.join(directory, "stderr"), "w+")
        try:
            server, servers = start_server(os.path.join(directory, "state"), "--request-log", request_log,
                                           stderr=stderr, seconds=300)
        except Failure:
            stderr.seek(0)
            print("the server did not start:\n" + stderr.read())
            return 1
        try:
            servers.ready["request_log"] = request_log
            servers.ready["enbeacon"] = find_enbeacon(args.enbeacon)
            failures = 0
            for function in CHECKS:
                try:
                    function(servers)
                    print(f"ok   {function.__name__}")
                except (Failure, OSError, ValueError, KeyError) as error:
                    failures += 1
                    print(f"FAIL {function.__name__}: {type(error).__name__}: {error}")
                finally:
                    servers.control("POST", "/_test/faults/clear", {})
        finally:
            server.terminate()
            server.wait(timeout=10)
        if failures and args.verbose:
            stderr.seek(0)
            print(stderr.read())
    print(f"{len(CHECKS) - failures} of {len(CHECKS)} checks passed in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
