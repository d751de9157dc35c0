# SPDX-License-Identifier: GPL-2.0-only
# pngcheck.py FILE: is this PNG (a browser's screenshot) a picture rather than a blank page?
# Decodes it (8-bit RGB or RGBA, every filter type) and prints the share of pixels unlike the
# corner's and the number of distinct colours; exits 1 when under 2% or 8 colours.
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), "not 8-bit RGB(A)"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
bg = rows[0][:3]
colours, other = set(), 0
for r in rows:
    for x in range(0, stride, bpp):
        px = r[x:x + 3]
        colours.add(px)
        other += px != bg
share = other / (w * h)
print("%dx%d: %.1f%% of pixels not the background, %d colours" % (w, h, 100 * share, len(colours)))
sys.exit(0 if share >= 0.02 and len(colours) >= 8 else 1)
