"""The verification server's device API (PUBLISH.md §2): POST /api/verify exchanges a code for a token,
POST /api/certificate exchanges the token and an ekeyhmac for a certificate the key server accepts."""

import base64
import binascii
import copy
import json
import re
import secrets
import threading

from cryptography.hazmat.primitives.asymmetric import ec

import ha_common as common
from ha_http import HANG, RESET, Response, json_response

TEST_TYPES = ("confirmed", "likely", "negative", "user-report")
# What each `accept` entry admits: the clinical types nest (likely admits confirmed, negative admits all three).
_ACCEPT = {
    "confirmed": {"confirmed"},
    "likely": {"confirmed", "likely"},
    "negative": {"confirmed", "likely", "negative"},
    "user-report": {"user-report"},
}

VERIFY_FIELDS = {"code": common.STRING, "accept": common.list_of(common.STRING), "padding": common.STRING}
CERTIFICATE_FIELDS = {"token": common.STRING, "ekeyhmac": common.STRING, "padding": common.STRING}

TOKEN_KEY_ID = "vs-token-1"
CERTIFICATE_KEY_ID = "vs-cert-1"


class CodeError(Exception):
    pass


class VerificationServer:
    """Codes, tokens and the two signing keys (tokens, certificates). Thread-safe."""

    def __init__(self, clock, faults, api_key, issuer, audience, token_lifetime, certificate_lifetime):
        self.clock = clock
        self.faults = faults
        self.api_key = api_key
        self.issuer = issuer
        self.audience = audience  # the key server's: certificates are for it
        self.token_lifetime = token_lifetime
        self.certificate_lifetime = certificate_lifetime
        self._lock = threading.Lock()
        self._codes = {}  # code -> dict
        self._tokens = {}  # jti -> dict
        self._token_key = ec.generate_private_key(ec.SECP256R1())
        self.certificate_key = ec.generate_private_key(ec.SECP256R1())
        self.certificate_public_keys = {CERTIFICATE_KEY_ID: self.certificate_key.public_key()}

    # ---- the health authority's side: codes issued by staff -------------------------------------------

    def issue_code(self, test_type="confirmed", expires_in=None, long=False, symptom_date=None, test_date=None,
                   state="fresh", code=None):
        if test_type not in TEST_TYPES:
            raise CodeError(f"testType must be one of {', '.join(TEST_TYPES)}")
        for day in (symptom_date, test_date):
            if day is not None:
                try:
                    common.utc_day_interval(day)
                except ValueError:
                    raise CodeError(f"not a YYYY-MM-DD day: {day!r}") from None
        if state not in ("fresh", "used", "expired"):
            raise CodeError("state must be fresh, used or expired")
        if expires_in is None:
            expires_in = 24 * 3600 if long else 15 * 60  # the VS defaults
        if not isinstance(expires_in, (int, float)) or expires_in <= 0:
            raise CodeError("expiresIn must be a positive number of seconds")
        now = self.clock.now()
        with self._lock:
            if code is None:
                while code is None or code in self._codes:
                    if long:
                        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
                        code = "".join(secrets.choice(alphabet) for _ in range(16))
                    else:
                        code = "".join(secrets.choice("0123456789") for _ in range(8))
            elif not isinstance(code, str) or not code or code in self._codes:
                raise CodeError("code must be a new, non-empty string")
            self._codes[code] = {
                "testType": test_type, "symptomDate": symptom_date, "testDate": test_date,
                "expiresAt": now - 1 if state == "expired" else now + expires_in,
                "used": state == "used", "long": long,
            }
            return {"code": code, "testType": test_type, "expiresAt": self._codes[code]["expiresAt"]}

    def set_code_state(self, code, state):
        with self._lock:
            record = self._codes.get(code)
            if record is None:
                raise CodeError("no such code")
            if state == "used":
                record["used"] = True
            elif state == "expired":
                record["expiresAt"] = self.clock.now() - 1
            else:
                raise CodeError("state must be used or expired")

    def expire_tokens(self):
        """Every token issued so far lapses in the server's records (the certificate API then answers
        token_expired), as it does when a token outlives its validity before it is used."""
        with self._lock:
            for token in self._tokens.values():
                token["expired"] = True
            return len(self._tokens)

    def records(self):
        """What it must keep across a restart (`serve --keep-records`): codes, tokens and both signing keys."""
        with self._lock:
            return {"codes": copy.deepcopy(self._codes), "tokens": copy.deepcopy(self._tokens),
                    "tokenKey": common.private_pem(self._token_key),
                    "certificateKey": common.private_pem(self.certificate_key)}

    def restore(self, records):
        with self._lock:
            self._codes = records["codes"]
            self._tokens = records["tokens"]
            self._token_key = common.load_private_pem(records["tokenKey"])
            self.certificate_key = common.load_private_pem(records["certificateKey"])
            # The key server holds this dict: updated in place, it checks certificates with the kept key.
            self.certificate_public_keys[CERTIFICATE_KEY_ID] = self.certificate_key.public_key()

    def describe(self):
        with self._lock:
            return {
                "codes": len(self._codes),
                "tokens": [{"used": t["used"], "expired": t["expired"], "expiresAt": t["expiresAt"],
                            "testType": t["testType"]} for t in self._tokens.values()],
            }

    # ---- the device API -----------------------------------------------------------------------------------

    def handle(self, request):
        path = request.path
        if path not in ("/api/verify", "/api/certificate"):
            return Response(404, "404 page not found\n", content_type="text/plain; charset=utf-8")
        fault = self.faults.take("verification", path, ("status", "reset", "hang"))
        if fault:
            return self._fault_answer(fault)
        if request.method != "POST":
            return Response(405, "method not allowed\n", content_type="text/plain; charset=utf-8",
                            headers={"Allow": "POST"})
        if request.header("x-api-key").strip() != self.api_key:
            return json_response(401, {"error": "unauthorized"}, error_code="unauthorized")
        if request.header("x-chaff").strip():
            # A meaningless answer of a realistic size; not JSON (clients must not parse it).
            return Response(200, common.padding(), content_type="text/plain; charset=utf-8")
        if path == "/api/verify":
            return self._verify(request)
        return self._certificate(request)

    def _fault_answer(self, fault):
        if fault.kind == "reset":
            return RESET
        if fault.kind == "hang":
            return (HANG, fault)
        status = fault.status
        code = fault.error_code or {429: "maintenance_mode", 500: "internal_server_error"}.get(status)
        headers = {}
        if status == 429:
            headers["Retry-After"] = str(fault.retry_after or 60)
        if code is None:
            # Something in front of the server answered (a proxy, a load balancer): not the API's shape.
            return Response(status, f"upstream error {status}\n", content_type="text/plain; charset=utf-8",
                            headers=headers, fault="status")
        message = {"maintenance_mode": "realm is in maintenance mode",
                   "internal_server_error": "internal server error"}.get(code, code)
        return Response(status, _json({"error": message, "errorCode": code}), headers=headers, error_code=code,
                        fault="status")

    @staticmethod
    def _bind(request, fields):
        """The request's JSON, or the reason it cannot be read (content type, size, syntax, unknown field)."""
        if not request.header("content-type").startswith("application/json"):
            raise common.RequestJSONError("content-type is not application/json")
        if request.too_large:
            raise common.RequestJSONError("http: request body too large")
        return common.decode_request(request.body, fields)

    def _verify(self, request):
        try:
            data = self._bind(request, VERIFY_FIELDS)
        except common.RequestJSONError as error:
            return _error(400, str(error), "unparsable_request")
        try:
            accepted = set()
            for entry in data.get("accept") or TEST_TYPES:
                if entry not in _ACCEPT:
                    raise ValueError(entry)
                accepted |= _ACCEPT[entry]
        except ValueError as error:
            return _error(400, f"invalid test type: {error}", "invalid_test_type")
        code = data.get("code", "")
        now = self.clock.now()
        with self._lock:
            record = self._codes.get(code)
            if record is None or record["used"]:
                return _error(400, "verification code invalid", "code_invalid")
            if now >= record["expiresAt"]:
                return _error(400, "verification code expired", "code_expired")
            if record["testType"] not in accepted:
                return _error(412, "verification code has unsupported test type", "unsupported_test_type")
            record["used"] = True
            jti = secrets.token_hex(16)
            subject = f'{record["testType"]}.{record["symptomDate"] or ""}.{record["testDate"] or ""}'
            expires_at = int(now + self.token_lifetime)
            self._tokens[jti] = {"subject": subject, "testType": record["testType"],
                                 "symptomDate": record["symptomDate"], "expiresAt": expires_at,
                                 "used": False, "expired": False}
        claims = {"aud": self.issuer, "exp": expires_at, "jti": jti, "iat": int(now), "iss": self.issuer,
                  "sub": subject}
        answer = {"testtype": record["testType"]}
        if record["symptomDate"]:
            answer["symptomDate"] = record["symptomDate"]
        if record["testDate"]:
            answer["testDate"] = record["testDate"]
        answer["token"] = common.jwt_sign(self._token_key, TOKEN_KEY_ID, claims)
        answer["padding"] = common.padding()
        return json_response(200, answer)

    def _certificate(self, request):
        try:
            data = self._bind(request, CERTIFICATE_FIELDS)
        except common.RequestJSONError as error:
            return _error(400, str(error), "token_invalid")
        now = self.clock.now()
        try:
            _, claims = common.jwt_verify(data.get("token", ""), {TOKEN_KEY_ID: self._token_key.public_key()})
        except common.JWTError:
            return _error(400, "invalid verification token", "token_invalid")
        expires = claims.get("exp")
        issued = claims.get("iat")
        if not isinstance(expires, int) or now >= expires or (isinstance(issued, int) and issued > now + 60):
            return _error(400, "verification token expired", "token_invalid")
        if claims.get("iss") != self.issuer or claims.get("aud") != self.issuer:
            return _error(400, "verification token not valid", "token_invalid")
        try:
            mac = _decode_any_base64(data.get("ekeyhmac", ""))
        except ValueError as error:
            return _error(400, f"exposure key HMAC is not a valid base64: {error}", "hmac_invalid")
        if len(mac) != 32:
            return _error(400, f"exposure key HMAC is not the correct length, want: 32 got: {len(mac)}",
                          "hmac_invalid")
        with self._lock:
            token = self._tokens.get(claims.get("jti"))
            if token is None or token["subject"] != claims.get("sub"):
                return _error(400, "verification token invalid", "token_expired")
            if token["used"]:
                return _error(400, "verification token invalid", "token_expired")
            if token["expired"] or now >= token["expiresAt"]:
                return _error(400, "verification token expired", "token_expired")
            token["used"] = True
        certificate_claims = {"reportType": token["testType"]}
        if token["symptomDate"]:
            certificate_claims["symptomOnsetInterval"] = common.utc_day_interval(token["symptomDate"])
        certificate_claims.update({
            "tekmac": data["ekeyhmac"], "aud": self.audience, "exp": int(now + self.certificate_lifetime),
            "iat": int(now), "iss": self.issuer, "nbf": int(now) - 1,
        })
        certificate = common.jwt_sign(self.certificate_key, CERTIFICATE_KEY_ID, certificate_claims)
        return json_response(200, {"certificate": certificate, "padding": common.padding()})


def _json(document):
    return json.dumps(document, separators=(",", ":"))


def _error(status, message, code):
    return json_response(status, {"error": message, "errorCode": code}, error_code=code)


def _decode_any_base64(text):
    """Standard or URL alphabet, with or without padding, as the VS's base64util accepts."""
    if not re.match(r"^[A-Za-z0-9+/_-]*={0,2}$", text):
        raise ValueError("illegal base64 data")
    normalized = text.replace("-", "+").replace("_", "/").rstrip("=")
    if len(normalized) % 4 == 1:
        raise ValueError("illegal base64 data")
    try:
        return base64.b64decode(normalized + "=" * (-len(normalized) % 4), validate=True)
    except binascii.Error as error:
        raise ValueError(str(error)) from None

