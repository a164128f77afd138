#!/usr/bin/env python3
"""An independent reader of KumalakZero model files, from the format's description alone
(docs/data-format.md), with Python's json, struct and zlib: the container's header and
CRC, the metadata, and the weights as a safetensors file. For each file it checks that
every tensor's offsets tile the data, that the tensors are the network the metadata
describes (the tower's blocks, the widths), that every value is a finite number, and that
FNV-1a 64 over the tensors in the order of their data equals the metadata's
weights_checksum. Exit status 0 when every file passes; it prints one line per file.

    python3 tests/model_weights_reader.py models/*.pt
"""
import json
import math
import struct
import sys
import zlib

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
SIZES = {"F32": 4, "I64": 8}


def fnv1a64(data, h):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def check(path):
    raw = open(path, "rb").read()
    magic, version, meta_len, payload_len, crc = struct.unpack_from("<8sIIQI", raw, 0)
    assert magic == b"KZMODEL\0", "bad magic"
    assert version == 1, f"container version {version}"
    assert 28 + meta_len + payload_len == len(raw), "lengths do not add up"
    meta_bytes = raw[28:28 + meta_len]
    payload = raw[28 + meta_len:]
    assert zlib.crc32(payload, zlib.crc32(meta_bytes)) == crc, "CRC mismatch"
    meta = json.loads(meta_bytes)
    assert meta["format"] == "kumalakzero-model"
    assert meta.get("weights_format") == "safetensors", "weights are not safetensors"

    (header_len,) = struct.unpack_from("<Q", payload, 0)
    header = json.loads(payload[8:8 + header_len])
    data = payload[8 + header_len:]
    header.pop("__metadata__", None)
    tensors = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0])
    end = 0
    checksum = FNV_OFFSET
    for name, t in tensors:
        begin, stop = t["data_offsets"]
        assert begin == end, f"{name}: data does not follow the tensor before it"
        count = math.prod(t["shape"])
        assert stop - begin == count * SIZES[t["dtype"]], f"{name}: size"
        chunk = data[begin:stop]
        if t["dtype"] == "F32":
            values = struct.unpack(f"<{count}f", chunk)
            assert all(math.isfinite(v) for v in values), f"{name}: not finite"
        checksum = fnv1a64(chunk, checksum)
        end = stop
    assert end == len(data), "bytes after the last tensor"
    assert str(checksum) == meta["weights_checksum"], "weights checksum mismatch"

    net = meta["network"]
    shapes = dict((name, t["shape"]) for name, t in tensors)
    blocks = {name.split(".")[1] for name in shapes if name.startswith("tower.")}
    assert len(blocks) == net["blocks"], f"{len(blocks)} blocks, metadata {net['blocks']}"
    assert shapes["input_conv.weight"][0] == net["channels"]
    assert shapes["policy_conv.weight"] == [net["policy_channels"], net["channels"], 1]
    assert shapes["value_fc.weight"] == [net["value_hidden"], 2 * net["value_channels"]]
    return len(tensors)


def main(paths):
    failed = 0
    for path in paths:
        try:
            n = check(path)
            print(f"{path}: ok, {n} tensors")
        except Exception as e:  # every failure is reported, then the next file
            print(f"{path}: FAILED: {e}")
            failed += 1
    print(f"{len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
