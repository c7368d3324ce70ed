"""Helpers of the summary tests: a PNG decoder written here (zlib + the five PNG row
filters; independent of libpng, which both systems' encoders use) and a field-by-field
comparison of Summary values."""
import struct
import zlib

import numpy as np

_CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}  # PNG colour type -> channels (8-bit, no palette)


def decode_png(data):
    """An 8-bit, non-interlaced PNG as a [height, width, channels] uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in PNG chunk {kind!r}"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0 and colour in _CHANNELS, header
    channels = _CHANNELS[colour]
    stride = width * channels
    raw = zlib.decompress(idat)
    assert len(raw) == height * (stride + 1)
    out = np.zeros((height, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        row = np.zeros(stride, np.int32)
        for x in range(stride):
            a = row[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            row[x] = (line[x] + pred) & 0xFF
        out[y] = row
        prev = row
    return out.astype(np.uint8).reshape(height, width, channels)


def assert_values_equal(ours, theirs, where=""):
    """Two Summary.Value messages (ours, TF's) carry the same tag, kind and payload; images
    compare decoded pixels (PNG bytes may differ with the zlib build), WAV audio its bytes."""
    assert ours.tag == theirs.tag, where
    assert ours.WhichOneof("value") == theirs.WhichOneof("value"), (where, ours.tag)
    assert ours.metadata == theirs.metadata, (where, ours.tag)
    kind = ours.WhichOneof("value")
    if kind == "simple_value":
        assert np.float32(ours.simple_value).tobytes() == np.float32(theirs.simple_value).tobytes(), (where, ours.tag)
    elif kind == "histo":
        for field in ("min", "max", "num", "sum", "sum_squares"):
            assert getattr(ours.histo, field) == getattr(theirs.histo, field), (where, ours.tag, field)
        assert list(ours.histo.bucket_limit) == list(theirs.histo.bucket_limit), (where, ours.tag)
        assert list(ours.histo.bucket) == list(theirs.histo.bucket), (where, ours.tag)
    elif kind == "image":
        for field in ("height", "width", "colorspace"):
            assert getattr(ours.image, field) == getattr(theirs.image, field), (where, ours.tag, field)
        np.testing.assert_array_equal(decode_png(ours.image.encoded_image_string),
                                      decode_png(theirs.image.encoded_image_string), err_msg=f"{where} {ours.tag}")
    elif kind == "audio":
        for field in ("sample_rate", "num_channels", "length_frames", "content_type"):
            assert getattr(ours.audio, field) == getattr(theirs.audio, field), (where, ours.tag, field)
        assert ours.audio.encoded_audio_string == theirs.audio.encoded_audio_string, (where, ours.tag)
    elif kind == "tensor":
        assert ours.tensor.dtype == theirs.tensor.dtype, (where, ours.tag)
        assert ours.tensor.tensor_shape == theirs.tensor.tensor_shape, (where, ours.tag)
        assert list(ours.tensor.string_val) == list(theirs.tensor.string_val), (where, ours.tag)
        assert ours.tensor.tensor_content == theirs.tensor.tensor_content, (where, ours.tag)
    else:
        raise AssertionError(f"{where}: unexpected summary value kind {kind}")
