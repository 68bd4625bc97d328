#!/usr/bin/env python3
"""Photographs the whole X screen ($DISPLAY) into a PNG, for checks that run the app outside a
WebDriver session (the installed package started from its menu entry). Needs only libX11 and
the standard library: Xlib through ctypes, the PNG written with zlib.
usage: screen_png.py OUT.png
"""

import ctypes
import ctypes.util
import struct
import sys
import zlib

Z_PIXMAP = 2
ALL_PLANES = 0xFFFFFFFF


class XImage(ctypes.Structure):
    # The leading fields of Xlib's XImage, up to the ones read here.
    _fields_ = [
        ("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int), ("format", ctypes.c_int),
        ("data", ctypes.POINTER(ctypes.c_ubyte)), ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
        ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int), ("depth", ctypes.c_int),
        ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int),
    ]


class XWindowAttributes(ctypes.Structure):
    # Only the leading fields (position, size) are read; the rest is room for Xlib to fill.
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("rest", ctypes.c_byte * 256)]


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    x11 = ctypes.CDLL(ctypes.util.find_library("X11"))
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(XWindowAttributes)]
    x11.XGetImage.restype = ctypes.c_void_p
    x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                              ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
    display = x11.XOpenDisplay(None)
    if not display:
        raise SystemExit("cannot open the display: is DISPLAY set?")
    root = x11.XDefaultRootWindow(display)
    attrs = XWindowAttributes()
    x11.XGetWindowAttributes(display, root, ctypes.byref(attrs))
    width, height = attrs.width, attrs.height
    image = ctypes.cast(x11.XGetImage(display, root, 0, 0, width, height, ALL_PLANES, Z_PIXMAP),
                        ctypes.POINTER(XImage)).contents
    if image.bits_per_pixel != 32:
        raise SystemExit(f"only 32-bit screens are handled (this one has {image.bits_per_pixel} bits per pixel)")
    raw = ctypes.string_at(image.data, image.bytes_per_line * height)
    rows = bytearray()
    for y in range(height):
        line = raw[y * image.bytes_per_line: y * image.bytes_per_line + 4 * width]
        rgb = bytearray(3 * width)
        # Little-endian 32-bit pixels are B, G, R, unused.
        rgb[0::3], rgb[1::3], rgb[2::3] = line[2::4], line[1::4], line[0::4]
        rows += b"\0" + rgb
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(sys.argv[1], "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6))
                  + chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
