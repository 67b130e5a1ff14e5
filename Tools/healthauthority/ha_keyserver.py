"""The key server (PUBLISH.md §3): POST /v1/publish takes keys with a verification certificate, checks them as
the real one does, stores them and releases them in signed exports listed by index.txt (SPEC.md §3, Google's
layout: `<prefix>/index.txt`, lines `<prefix>/<start>-<end>-00001.zip`, fetched as base URL + line)."""

import copy
import os
import threading

import ha_common as common
import ha_export as export
from ha_http import HANG, RESET, Response, json_response

KEY_FIELDS = {"key": common.STRING, "rollingStartNumber": common.INT32, "rollingPeriod": common.INT32,
              "transmissionRisk": common.INT32}
PUBLISH_FIELDS = {
    "temporaryExposureKeys": common.list_of(common.object_of(KEY_FIELDS)),
    "healthAuthorityID": common.STRING,
    "verificationPayload": common.STRING,
    "hmacKey": common.STRING,
    "symptomOnsetInterval": common.INT32,
    "traveler": common.BOOL,
    "revisionToken": common.STRING,
    "padding": common.STRING,
}

DEFAULT_TRANSMISSION_RISK = {"confirmed": 2, "likely": 4, "negative": 6, "user-report": 4}
# Revisions the key server allows (a likely diagnosis confirmed or ruled out); anything else is refused.
_ALLOWED_TRANSITIONS = {("likely", "confirmed"), ("likely", "negative")}
_DAY = common.INTERVALS_PER_DAY
_MAX_KEY_AGE_INTERVALS = 15 * _DAY
_ONSET_WINDOW_INTERVALS = 28 * _DAY
_CLOCK_SKEW_SECONDS = 60


class HealthAuthority:
    def __init__(self, identifier, issuer, audience, public_keys):
        self.identifier = identifier
        self.issuer = issuer
        self.audience = audience
        self.public_keys = public_keys  # kid -> EC public key


class Refusal(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class KeyServer:
    def __init__(self, clock, faults, health_authorities, signing_key, key_id, key_version, region, export_root,
                 max_keys):
        self.clock = clock
        self.faults = faults
        self.health_authorities = {ha.identifier: ha for ha in health_authorities}
        self.signing_key = signing_key
        self.key_id = key_id
        self.key_version = key_version
        self.region = region
        self.prefix = f"exposureKeyExport-{region}"
        self.export_root = export_root
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._keys = {}  # key bytes -> record
        self._revision_tokens = {}  # token -> set of key bytes
        self._index_lines = []
        self._last_export_end = int(clock.now())
        os.makedirs(os.path.join(export_root, self.prefix), exist_ok=True)
        self._write_index()

    # ---- exports --------------------------------------------------------------------------------------

    def run_export(self):
        """Releases every stored key whose embargo has passed and that no export holds yet into one new
        signed file, appended to index.txt. Returns the new index line, or None when nothing was due."""
        now = self.clock.now()
        with self._lock:
            fresh = [r for r in self._keys.values()
                     if r["exportedIn"] is None and r["releaseAt"] <= now and r["reportType"] != "negative"]
            revised = [r for r in self._keys.values()
                       if r["revised"] and r["revisionExportedIn"] is None and r["releaseAt"] <= now]
            if not fresh and not revised:
                return None
            start = self._last_export_end
            end = max(int(now), start + 1)
            name = f"{self.prefix}/{start}-{end}-00001.zip"
            archive = export.signed_export_zip(
                self.signing_key, start, end, self.region, self.key_id, self.key_version,
                [self._export_record(r) for r in fresh], [self._export_record(r) for r in revised])
            common.replace_file(os.path.join(self.export_root, name), archive)
            for record in fresh:
                record["exportedIn"] = name
            for record in revised:
                record["revisionExportedIn"] = name
            self._index_lines.append(name)
            self._last_export_end = end
            self._write_index()
            return name

    @staticmethod
    def _export_record(record):
        return {"key": record["keyBytes"], "transmission_risk": record["transmissionRisk"],
                "rolling_start": record["rollingStartNumber"], "rolling_period": record["rollingPeriod"],
                "report_type": record["reportType"], "days_since_onset": record["daysSinceOnset"]}

    def records(self):
        """What it must keep across a restart (`serve --keep-records`): stored keys, revision tokens, the index."""
        with self._lock:
            return {"keys": copy.deepcopy(self._keys), "revisionTokens": copy.deepcopy(self._revision_tokens),
                    "indexLines": list(self._index_lines), "lastExportEnd": self._last_export_end}

    def restore(self, records):
        with self._lock:
            self._keys = records["keys"]
            self._revision_tokens = records["revisionTokens"]
            self._index_lines = records["indexLines"]
            self._last_export_end = records["lastExportEnd"]
            self._write_index()

    def _write_index(self):
        common.replace_file(os.path.join(self.export_root, self.prefix, "index.txt"),
                            "".join(line + "\n" for line in self._index_lines).encode("ascii"))

    def published(self):
        with self._lock:
            return [{k: v for k, v in r.items() if k != "keyBytes"} for r in self._keys.values()]

    # ---- HTTP -------------------------------------------------------------------------------------------

    def handle(self, request):
        path = request.path
        if path == "/v1/publish":
            fault = self.faults.take("keyserver", path, ("status", "reset", "hang"))
            if fault:
                return self._fault_answer(fault)
            if request.method != "POST":
                return Response(405, "method not allowed\n", content_type="text/plain; charset=utf-8",
                                headers={"Allow": "POST"})
            return self._publish(request)
        if path.startswith(f"/{self.prefix}/"):
            fault = self.faults.take("keyserver", path, ("status", "reset", "hang"))
            if fault:
                return self._fault_answer(fault)
            if request.method not in ("GET", "HEAD"):
                return Response(405, "method not allowed\n", content_type="text/plain; charset=utf-8")
            return self._serve_file(path)
        return Response(404, "404 page not found\n", content_type="text/plain; charset=utf-8")

    def _serve_file(self, path):
        name = path.lstrip("/")
        if name == f"{self.prefix}/index.txt":
            self.run_export()  # the export worker runs whenever someone looks: no waiting for a batch window
        with self._lock:
            known = name == f"{self.prefix}/index.txt" or name in self._index_lines
        if not known:
            return Response(404, "404 page not found\n", content_type="text/plain; charset=utf-8")
        with open(os.path.join(self.export_root, name), "rb") as f:
            body = f.read()
        kind = "text/plain; charset=us-ascii" if name.endswith(".txt") else "application/zip"
        return Response(200, body, content_type=kind)

    def _fault_answer(self, fault):
        if fault.kind == "reset":
            return RESET
        if fault.kind == "hang":
            return (HANG, fault)
        code = fault.error_code or {500: "internal_error"}.get(fault.status)
        headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after else {}
        if code is None:
            return Response(fault.status, f"upstream error {fault.status}\n",
                            content_type="text/plain; charset=utf-8", headers=headers, fault="status")
        response = _answer(fault.status, {"error": "internal error" if code == "internal_error" else code,
                                          "code": code})
        response.headers.update(headers)
        response.fault = "status"
        return response

    def _publish(self, request):
        if request.header("x-chaff").strip():
            return json_response(200, {"padding": common.padding()})
        if not request.header("content-type").startswith("application/json"):
            return _answer(415, {"error": "error unmarshalling API call, code: 415: content-type is not "
                                          "application/json", "code": "bad_request"})
        if request.too_large:
            return _answer(413, {"error": "error unmarshalling API call, code: 413: http: request body too "
                                          "large", "code": "bad_request"})
        try:
            data = common.decode_request(request.body, PUBLISH_FIELDS)
        except common.RequestJSONError as error:
            return _answer(400, {"error": f"error unmarshalling API call, code: 400: {error}",
                                 "code": "bad_request"})
        try:
            answer = self._process(data)
        except Refusal as refusal:
            return _answer(refusal.status, {"error": refusal.message, "code": refusal.code})
        self.run_export()
        return _answer(200, answer)

    def _process(self, data):
        authority = self.health_authorities.get(data.get("healthAuthorityID", ""))
        if authority is None:
            raise Refusal(401, "unknown_health_authority_id", "unknown health authority id")
        # A null element is an all-zero key to Go, and fails validation like one.
        keys = [key or {} for key in data.get("temporaryExposureKeys") or []]
        for key in keys:
            for field in ("rollingStartNumber", "rollingPeriod", "transmissionRisk"):
                key.setdefault(field, 0)
            key.setdefault("key", "")
        claims = self._verify_certificate(authority, data, keys)
        if self.faults.take("keyserver", "/v1/publish", ("certificate-rejected",)):
            raise Refusal(401, "health_authority_verification_certificate_invalid",
                          "unable to validate diagnosis verification: certificate rejected (injected fault)")
        if not keys:
            raise Refusal(400, "bad_request", "no exposure keys in publish request")
        if len(keys) > self.max_keys:
            raise Refusal(400, "bad_request",
                          f"too many exposure keys in publish: {len(keys)}, max of {self.max_keys} is allowed")

        now_interval = self.clock.interval()
        report_type = claims["reportType"]
        onset = self._symptom_onset(data.get("symptomOnsetInterval"), claims, now_interval)
        warnings = []
        accepted = []
        for index, key in enumerate(keys):
            reason = self._key_problem(key, now_interval)
            if reason is None:
                days = (key["rollingStartNumber"] - onset) // _DAY
                if abs(days) > 14:
                    reason = f"{days} days from symptom onset, more than 14"
            if reason:
                warnings.append(f"key {index} (rollingStartNumber {key['rollingStartNumber']}) was not "
                                f"imported: {reason}")
                continue
            accepted.append((index, key, days))
        if not accepted:
            raise Refusal(400, "bad_request", "no valid exposure keys: " + "; ".join(warnings))
        self._check_overlaps([key for _, key, _ in accepted])

        partial = self.faults.take("keyserver", "/v1/publish", ("partial-failure",))
        if partial:
            dropped, accepted = accepted[:partial.drop], accepted[partial.drop:]
            for index, key, _ in dropped:
                warnings.append(f"key {index} (rollingStartNumber {key['rollingStartNumber']}) was not "
                                f"imported: storage failure (injected fault)")
            if not accepted:
                raise Refusal(400, "bad_request", "no valid exposure keys: " + "; ".join(warnings))
        now = self.clock.now()
        with self._lock:
            previous = self._check_revisions(data.get("revisionToken"), accepted, report_type)
            inserted = 0
            for _, key, days in accepted:
                key_bytes = common.b64decode_std(key["key"])
                risk = key["transmissionRisk"] or DEFAULT_TRANSMISSION_RISK[report_type]
                end = key["rollingStartNumber"] + key["rollingPeriod"]
                # A key still valid is embargoed until about an hour after it ends.
                release_at = now if end <= now_interval else end * common.INTERVAL_SECONDS + 3600
                stored = self._keys.get(key_bytes)
                if stored is None:
                    self._keys[key_bytes] = {
                        "key": key["key"], "keyBytes": key_bytes,
                        "rollingStartNumber": key["rollingStartNumber"], "rollingPeriod": key["rollingPeriod"],
                        "transmissionRisk": risk, "reportType": report_type, "daysSinceOnset": days,
                        "releaseAt": release_at, "publishedAt": now, "exportedIn": None,
                        "revised": False, "revisionExportedIn": None, "healthAuthorityID": authority.identifier,
                    }
                    inserted += 1
                elif stored["reportType"] != report_type:
                    stored.update({"reportType": report_type, "transmissionRisk": risk, "revised": True,
                                   "daysSinceOnset": days, "releaseAt": max(release_at, stored["releaseAt"])})
                    inserted += 1
            token = common.b64encode_std(os.urandom(48))
            covered = set(previous)
            covered.update(common.b64decode_std(key["key"]) for _, key, _ in accepted)
            self._revision_tokens[token] = covered
        answer = {"revisionToken": token, "insertedExposures": inserted}
        if warnings:
            answer.update({"code": "partial_failure", "error": "some keys were not imported", "warnings": warnings})
        return answer

    def _verify_certificate(self, authority, data, keys):
        def refuse(reason):
            raise Refusal(401, "health_authority_verification_certificate_invalid",
                          f"unable to validate diagnosis verification: {reason}")

        try:
            header, claims = common.jwt_verify(data.get("verificationPayload", ""), authority.public_keys)
        except common.JWTError as error:
            refuse(str(error))
        now = self.clock.now()
        if claims.get("iss") != authority.issuer:
            refuse("issuer not found")
        if claims.get("aud") != authority.audience:
            refuse("audience mismatch")
        expires, not_before = claims.get("exp"), claims.get("nbf")
        if not isinstance(expires, int) or now > expires + _CLOCK_SKEW_SECONDS:
            refuse("token is expired")
        if isinstance(not_before, int) and now < not_before - _CLOCK_SKEW_SECONDS:
            refuse("token is not valid yet")
        if claims.get("reportType") not in DEFAULT_TRANSMISSION_RISK:
            refuse(f"invalid report type {claims.get('reportType')!r}")
        try:
            secret = common.b64decode_std(data.get("hmacKey", ""))
            claimed = common.b64decode_std(claims.get("tekmac", ""))
        except ValueError:
            refuse("hmacKey or tekmac is not base64")
        if not secret or not common.ekeyhmac_matches(secret, keys, claimed):
            refuse("HMAC mismatch: the certificate does not cover exactly these keys")
        return claims

    @staticmethod
    def _key_problem(key, now_interval):
        try:
            key_bytes = common.b64decode_std(key["key"])
        except ValueError:
            return "key is not base64"
        if len(key_bytes) != 16:
            return f"key is {len(key_bytes)} bytes, not 16"
        period = key["rollingPeriod"]
        if not 1 <= period <= 144:
            return f"rollingPeriod {period} is outside 1…144"
        start = key["rollingStartNumber"]
        if start + period < now_interval - _MAX_KEY_AGE_INTERVALS:
            return "the key ended more than 15 days ago"
        if start > now_interval:
            return "rollingStartNumber is in the future"
        if not 0 <= key["transmissionRisk"] <= 8:
            return f"transmissionRisk {key['transmissionRisk']} is outside 0…8"
        return None

    @staticmethod
    def _check_overlaps(keys):
        """No two keys may cover one interval, except that up to three may share a start (a key ended early
        and a new one began the same day)."""
        by_start = {}
        for key in keys:
            by_start.setdefault(key["rollingStartNumber"], []).append(key)
        previous_end = None
        for start in sorted(by_start):
            group = by_start[start]
            if len(group) > 3:
                raise Refusal(400, "bad_request", f"{len(group)} keys share rollingStartNumber {start}, "
                                                  f"at most 3 may")
            if previous_end is not None and start < previous_end:
                raise Refusal(400, "bad_request", "exposure keys have overlapping intervals")
            previous_end = max(start + key["rollingPeriod"] for key in group)

    @staticmethod
    def _symptom_onset(requested, claims, now_interval):
        """The request's onset if within the last 28 days, else the certificate's, else four days ago; as the
        UTC midnight interval."""
        if isinstance(requested, int) and requested > 0 and \
                now_interval - _ONSET_WINDOW_INTERVALS <= requested <= now_interval:
            onset = requested
        elif isinstance(claims.get("symptomOnsetInterval"), int) and claims["symptomOnsetInterval"] > 0:
            onset = claims["symptomOnsetInterval"]
        else:
            onset = now_interval - 4 * _DAY
        return onset - onset % _DAY

    def _check_revisions(self, token, accepted, report_type):
        """Keys already stored may only be re-sent with the revision token of the publish that stored them,
        with the same metadata and an allowed report-type change. Returns the keys the token covers."""
        covered = set()
        if token:
            if token not in self._revision_tokens:
                raise Refusal(400, "invalid_revision_token", "revision token is invalid")
            covered = self._revision_tokens[token]
        for _, key, _ in accepted:
            stored = self._keys.get(common.b64decode_std(key["key"]))
            if stored is None:
                continue
            if not token:
                raise Refusal(400, "missing_revision_token", "publish request contains keys that are already "
                                                             "stored, but no revision token")
            if stored["keyBytes"] not in covered:
                raise Refusal(400, "invalid_revision_token", "revision token does not cover a re-sent key")
            if (stored["rollingStartNumber"], stored["rollingPeriod"]) != \
                    (key["rollingStartNumber"], key["rollingPeriod"]):
                raise Refusal(400, "bad_request", "a re-sent key changed its rollingStartNumber or rollingPeriod")
            if stored["reportType"] == report_type:
                continue
            if stored["revised"]:
                raise Refusal(400, "key_already_revised", "a re-sent key was already revised")
            if (stored["reportType"], report_type) not in _ALLOWED_TRANSITIONS:
                raise Refusal(400, "invalid_report_type_transition",
                              f"cannot revise a {stored['reportType']} key to {report_type}")
        return covered


def _answer(status, document):
    """A key server answer: padded, whatever it says (so sizes say nothing of the outcome)."""
    document = dict(document)
    document["padding"] = common.padding()
    return json_response(status, document, error_code=document.get("code"))
