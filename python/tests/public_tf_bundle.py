"""An independent reader of TensorFlow's V2 checkpoint (tensor bundle) for the tests: the
.index file is a LevelDB table (footer -> index block -> data blocks of prefix-compressed
keys) whose values are BundleEntryProtos; each names a byte range of a .data shard. Written
from the formats' specifications, sharing nothing with the engine's C++ reader."""
import struct

import numpy as np

from tensorweave.proto import tensor_bundle_pb2

_MAGIC = 0xdb4775248b80fb57  # LevelDB's table magic number
_DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 6: np.int8, 9: np.int64, 10: np.bool_}


def _varint(buf, pos):
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc):
    """LevelDB's masking of a stored CRC (rotate right 15, add a constant), which TF's bundle uses."""
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _snappy(data):
    """Snappy's raw format: the length, then literals and back-references."""
    length, pos = _varint(data, 0)
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal; lengths over 60 follow in 1-4 bytes
            n = tag >> 2
            if n >= 60:
                extra = n - 59
                n = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            out += data[pos:pos + n + 1]
            pos += n + 1
            continue
        if kind == 1:
            n, offset = 4 + ((tag >> 2) & 7), ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            n, offset = (tag >> 2) + 1, int.from_bytes(data[pos:pos + width], "little")
            pos += width
        for _ in range(n):  # byte by byte: a copy may overlap what it writes
            out.append(out[-offset])
    assert len(out) == length
    return bytes(out)


def _block(buf, handle):
    """The entries of the block at `handle` (offset, size): [(key, value)]."""
    offset, size = handle
    data = buf[offset:offset + size]
    kind = buf[offset + size]  # the block trailer: 0 raw, 1 Snappy (TF 1.x wrote some index blocks so)
    assert kind in (0, 1), "block compression %d" % kind
    if kind == 1:
        data = _snappy(data)
    num_restarts = struct.unpack_from("<I", data, len(data) - 4)[0]
    end = len(data) - 4 - 4 * num_restarts
    entries, pos, key = [], 0, b""
    while pos < end:
        shared, pos = _varint(data, pos)
        non_shared, pos = _varint(data, pos)
        value_len, pos = _varint(data, pos)
        key = key[:shared] + data[pos:pos + non_shared]
        pos += non_shared
        entries.append((key, data[pos:pos + value_len]))
        pos += value_len
    return entries


def read_index(path):
    """{key: BundleEntryProto} of a .index file, the header (key "") apart."""
    buf = open(path, "rb").read()
    assert struct.unpack_from("<Q", buf, len(buf) - 8)[0] == _MAGIC, path + " is not a LevelDB table"
    pos = len(buf) - 48
    _, pos = _varint(buf, pos)  # metaindex offset
    _, pos = _varint(buf, pos)  # metaindex size
    index_offset, pos = _varint(buf, pos)
    index_size, pos = _varint(buf, pos)
    header, entries = None, {}
    for _, handle in _block(buf, (index_offset, index_size)):
        offset, p = _varint(handle, 0)
        size, _ = _varint(handle, p)
        for key, value in _block(buf, (offset, size)):
            if key == b"":
                header = tensor_bundle_pb2.BundleHeaderProto.FromString(value)
            else:
                entries[key.decode()] = tensor_bundle_pb2.BundleEntryProto.FromString(value)
    return header, entries


def read_bundle(prefix):
    """{name: ndarray} of the checkpoint at `prefix`, each tensor's CRC32C checked."""
    header, entries = read_index(prefix + ".index")
    values = {}
    for name, entry in entries.items():
        shard = "%s.data-%05d-of-%05d" % (prefix, entry.shard_id, header.num_shards)
        with open(shard, "rb") as f:
            f.seek(entry.offset)
            raw = f.read(entry.size)
        assert _masked(_crc32c(raw)) == entry.crc32c, name
        shape = [d.size for d in entry.shape.dim]
        values[name] = np.frombuffer(raw, dtype=_DTYPES[entry.dtype]).reshape(shape)
    return values
