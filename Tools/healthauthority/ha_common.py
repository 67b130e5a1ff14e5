"""Pieces both test servers share: the clock tests can move, strict JSON the way Go's encoding/json reads a
request (unknown fields refused), ES256 JWTs, the ekeyhmac of PUBLISH.md §4, padding, durations.

Standard library plus PyPI `cryptography`; no JWT package (an ES256 JWT is three base64url parts and one
ECDSA signature in raw r‖s form, which `cryptography` signs and checks).
"""

import base64
import binascii
import calendar
import hashlib
import hmac
import json
import os
import re
import threading
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

INTERVAL_SECONDS = 600
INTERVALS_PER_DAY = 144
# Both servers read at most this much of a body (KS: 64,000 bytes; the VS binds JSON with the same cap).
MAX_BODY_BYTES = 64_000


class Clock:
    """The servers' notion of now: the wall clock plus an offset a test sets, so codes, tokens, certificates
    and key validity can be checked against an agent that runs in virtual time."""

    def __init__(self, start=None):
        self._lock = threading.Lock()
        self._offset = 0.0 if start is None else start - time.time()

    def now(self):
        with self._lock:
            return time.time() + self._offset

    def set(self, unix_seconds):
        with self._lock:
            self._offset = unix_seconds - time.time()

    def advance(self, seconds):
        with self._lock:
            self._offset += seconds

    def interval(self):
        return int(self.now()) // INTERVAL_SECONDS


# ---------------------------------------------------------------------------------------------------------
# Strict request JSON, as Go's encoding/json with DisallowUnknownFields reads it into a struct.

class RequestJSONError(Exception):
    pass


def _reject_constant(name):
    raise RequestJSONError(f"invalid character in JSON: {name}")


STRING, BOOL, INT32 = "string", "bool", "int32"


def list_of(spec):
    return ("list", spec)


def object_of(fields):
    return ("object", fields)


def decode_request(body, fields):
    """The request object as a dict holding only `fields` that were present (null counts as absent, as Go
    leaves the zero value). Unknown members, wrong types, fractions in integers, NaN and trailing data are
    refused with the kind of message Go gives."""
    text = body.decode("utf-8", errors="replace")  # Go replaces invalid UTF-8 rather than failing
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise RequestJSONError(f"malformed JSON: {error.msg} at offset {error.pos}") from None
    return _convert(value, object_of(fields), "")


def _convert(value, spec, path):
    if value is None:
        return None
    where = path or "request"
    if spec == STRING:
        if not isinstance(value, str):
            raise RequestJSONError(f"json: cannot unmarshal {_kind(value)} into field {where} of type string")
        return value
    if spec == BOOL:
        if not isinstance(value, bool):
            raise RequestJSONError(f"json: cannot unmarshal {_kind(value)} into field {where} of type bool")
        return value
    if spec == INT32:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RequestJSONError(f"json: cannot unmarshal {_kind(value)} into field {where} of type int32")
        if not -(2**31) <= value < 2**31:
            raise RequestJSONError(f"json: cannot unmarshal number {value} into field {where} of type int32")
        return value
    kind, inner = spec
    if kind == "list":
        if not isinstance(value, list):
            raise RequestJSONError(f"json: cannot unmarshal {_kind(value)} into field {where} of type array")
        return [_convert(item, inner, f"{path}[{i}]") for i, item in enumerate(value)]
    if not isinstance(value, dict):
        raise RequestJSONError(f"json: cannot unmarshal {_kind(value)} into {where} of type object")
    result = {}
    lowered = {name.lower(): name for name in inner}
    for member, item in value.items():
        # Go matches a member to a field exactly, else case-insensitively.
        name = member if member in inner else lowered.get(member.lower())
        if name is None:
            raise RequestJSONError(f'json: unknown field "{member}"')
        converted = _convert(item, inner[name], f"{path}.{name}" if path else name)
        if converted is not None:
            result[name] = converted
    return result


def _kind(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# ---------------------------------------------------------------------------------------------------------
# Base64 and ES256 JWTs.

_STD_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def b64decode_std(text):
    """Standard base64 with padding, strictly (what Go's StdEncoding accepts); raises ValueError."""
    if not isinstance(text, str) or len(text) % 4 != 0 or not _STD_BASE64.match(text):
        raise ValueError("not standard base64")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as error:
        raise ValueError(str(error)) from None


def b64encode_std(data):
    return base64.b64encode(data).decode("ascii")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    if not re.match(r"^[A-Za-z0-9_-]*$", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _compact(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=False).encode("utf-8")


def replace_file(path, data, mode=0o666):
    """Writes `data` to a new file, then renames it over `path`: a reader, or a server killed mid-write, finds
    the old content or the new, never half."""
    with open(os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def private_pem(private_key):
    return private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())


def load_private_pem(data):
    return serialization.load_pem_private_key(data, password=None)


def jwt_sign(private_key, kid, claims):
    header = {"alg": "ES256", "kid": kid, "typ": "JWT"}
    signing_input = b64url(_compact(header)) + "." + b64url(_compact(claims))
    der = private_key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


class JWTError(Exception):
    pass


def jwt_verify(token, public_keys):
    """(header, claims) of an ES256 JWT whose `kid` names one of `public_keys` and whose signature verifies.
    Times are not checked here: the callers decide which lapse is which error."""
    if not isinstance(token, str):
        raise JWTError("not a string")
    parts = token.split(".")
    if len(parts) != 3:
        raise JWTError("token contains an invalid number of segments")
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except (ValueError, json.JSONDecodeError):
        raise JWTError("malformed token") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise JWTError("malformed token")
    if header.get("alg") != "ES256":
        raise JWTError(f"signing method {header.get('alg')!r} is invalid")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise JWTError("missing 'kid' header in token")
    if kid not in public_keys:
        raise JWTError(f"no public key for 'kid' {kid}")
    if len(signature) != 64:
        raise JWTError("signature has the wrong length")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_keys[kid].verify(der, (parts[0] + "." + parts[1]).encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise JWTError("signature is invalid") from None
    return header, claims


# ---------------------------------------------------------------------------------------------------------
# ekeyhmac (PUBLISH.md §4).

def ekeyhmac_text(keys, with_transmission_risk=True):
    """The text the HMAC covers. `keys`: dicts with key (the base64 text as sent), rollingStartNumber,
    rollingPeriod, transmissionRisk."""
    parts = []
    for key in keys:
        fields = [key["key"], str(key["rollingStartNumber"]), str(key["rollingPeriod"])]
        if with_transmission_risk:
            fields.append(str(key["transmissionRisk"]))
        parts.append(".".join(fields))
    parts.sort(key=lambda text: text.encode("utf-8"))
    return ",".join(parts)


def ekeyhmac(secret, keys, with_transmission_risk=True):
    text = ekeyhmac_text(keys, with_transmission_risk).encode("utf-8")
    return hmac.new(secret, text, hashlib.sha256).digest()


def ekeyhmac_matches(secret, keys, claimed):
    """Whether `claimed` (bytes) is the HMAC of exactly these keys: four fields, or three when every
    transmission risk is 0 (both accepted, as the key server does)."""
    if hmac.compare_digest(ekeyhmac(secret, keys), claimed):
        return True
    if all(key["transmissionRisk"] == 0 for key in keys):
        return hmac.compare_digest(ekeyhmac(secret, keys, with_transmission_risk=False), claimed)
    return False


# ---------------------------------------------------------------------------------------------------------
# Small things.

def padding(minimum=1024, spread=1024):
    """Random base64 text of minimum…minimum+spread characters: how the servers pad their answers."""
    size = minimum + int.from_bytes(os.urandom(2), "big") % (spread + 1)
    return b64encode_std(os.urandom(size))[:size]


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|m|h|d)?$")


def parse_duration(text):
    """Seconds in `90`, `90s`, `15m`, `24h`, `2d`; raises ValueError otherwise."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ValueError(f"not a duration: {text!r} (expected e.g. 90s, 15m, 24h, 2d)")
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}[match.group(2)]


def utc_day_interval(day_text):
    """The ENIN of a YYYY-MM-DD day's UTC midnight; raises ValueError."""
    return calendar.timegm(time.strptime(day_text, "%Y-%m-%d")) // INTERVAL_SECONDS


def iso_day(unix_seconds):
    return time.strftime("%Y-%m-%d", time.gmtime(unix_seconds))
