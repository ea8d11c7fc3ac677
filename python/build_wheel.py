#!/usr/bin/env python3
"""Builds the gfxcuda wheel with only the standard library (no network, no
setuptools): python3 build_wheel.py LIBRARY HEADER OUTDIR."""

import base64
import hashlib
import os
import sys
import zipfile

NAME = "gfxcuda"
TAG = "py3-none-linux_x86_64"


def version(pkg):
    return open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION")).read().strip()


def record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def main():
    lib, header, outdir = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    pkg = os.path.join(here, NAME)
    ver = version(pkg)
    files = []
    for root, dirs, names in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py"):
                p = os.path.join(root, n)
                files.append((os.path.relpath(p, here), open(p, "rb").read()))
    files.append((NAME + "/libgfxcuda.so", open(lib, "rb").read()))
    files.append((NAME + "/gfxcuda.h", open(header, "rb").read()))
    di = "%s-%s.dist-info" % (NAME, ver)
    meta = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: Zero-copy GPU interop (Vulkan, CUDA, DLPack) "
            "with compushady's and Gfx2Cuda's APIs\nRequires-Python: >=3.9\nLicense: see the gfxcuda repository\n" % (NAME, ver))
    wheel = "Wheel-Version: 1.0\nGenerator: gfxcuda build_wheel.py\nRoot-Is-Purelib: false\nTag: %s\n" % TAG
    files += [(di + "/METADATA", meta.encode()), (di + "/WHEEL", wheel.encode())]
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "%s-%s-%s.whl" % (NAME, ver, TAG))
    records = [record_line(a, d) for a, d in files] + [di + "/RECORD,,"]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            info = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arc.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        z.writestr(zipfile.ZipInfo(di + "/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), "\n".join(records) + "\n")
    print(out)


if __name__ == "__main__":
    main()
