"""Signed diagnosis-key exports (SPEC.md §3, export.proto), written independently of the Swift writer: a zip
with export.bin (the 16-byte header and a TemporaryExposureKeyExport) and export.sig (a TEKSignatureList with
one ECDSA P-256 / SHA-256 DER signature over the whole export.bin)."""

import io
import zipfile

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

HEADER = b"EK Export v1    "
ECDSA_SHA256_OID = "1.2.840.10045.4.3.2"

# TemporaryExposureKey.ReportType
REPORT_TYPE_NUMBERS = {"confirmed": 1, "likely": 2, "user-report": 3}
REVOKED = 5


def _varint(value):
    out = bytearray()
    value &= (1 << 64) - 1  # negative int32 values are sign-extended to ten bytes, as protobuf does
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _tag(number, wire_type):
    return _varint(number << 3 | wire_type)


def _field_varint(number, value):
    return _tag(number, 0) + _varint(value)


def _field_fixed64(number, value):
    return _tag(number, 1) + int(value).to_bytes(8, "little")


def _field_bytes(number, data):
    return _tag(number, 2) + _varint(len(data)) + data


def _zigzag32(value):
    return ((value << 1) ^ (value >> 31)) & 0xFFFFFFFF


def _signature_info(key_id, key_version):
    return (_field_bytes(3, key_version.encode("ascii")) + _field_bytes(4, key_id.encode("ascii"))
            + _field_bytes(5, ECDSA_SHA256_OID.encode("ascii")))


def _key(record, report_type):
    """One TemporaryExposureKey message. `record`: key (16 bytes), transmission_risk, rolling_start,
    rolling_period, days_since_onset (or None)."""
    data = (_field_bytes(1, record["key"]) + _field_varint(2, record["transmission_risk"])
            + _field_varint(3, record["rolling_start"]) + _field_varint(4, record["rolling_period"])
            + _field_varint(5, report_type))
    if record.get("days_since_onset") is not None:
        data += _field_varint(6, _zigzag32(record["days_since_onset"]))
    return data


def export_bin(start, end, region, key_id, key_version, keys, revised_keys):
    """export.bin: the header, then the fields in number order. Keys are sorted by their bytes so that the
    order says nothing about who published them or when."""
    body = (_field_fixed64(1, start) + _field_fixed64(2, end) + _field_bytes(3, region.encode("ascii"))
            + _field_varint(4, 1) + _field_varint(5, 1)
            + _field_bytes(6, _signature_info(key_id, key_version)))
    for record in sorted(keys, key=lambda r: r["key"]):
        body += _field_bytes(7, _key(record, REPORT_TYPE_NUMBERS[record["report_type"]]))
    for record in sorted(revised_keys, key=lambda r: r["key"]):
        number = REVOKED if record["report_type"] == "negative" else REPORT_TYPE_NUMBERS[record["report_type"]]
        body += _field_bytes(8, _key(record, number))
    return HEADER + body


def export_sig(signature, key_id, key_version):
    signature_message = (_field_bytes(1, _signature_info(key_id, key_version)) + _field_varint(2, 1)
                         + _field_varint(3, 1) + _field_bytes(4, signature))
    return _field_bytes(1, signature_message)


def signed_export_zip(private_key, start, end, region, key_id, key_version, keys, revised_keys):
    binary = export_bin(start, end, region, key_id, key_version, keys, revised_keys)
    signature = private_key.sign(binary, ec.ECDSA(hashes.SHA256()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("export.bin", binary)
        archive.writestr("export.sig", export_sig(signature, key_id, key_version))
    return buffer.getvalue()


def load_or_generate_signing_key(path):
    if path:
        with open(path, "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise SystemExit(f"{path}: the export signing key must be an EC P-256 private key")
        return key
    return ec.generate_private_key(ec.SECP256R1())


def public_pem(private_key):
    return private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
