#!/usr/bin/env python3
"""Honest manylinux wheel tags, computed from the built library.

``wheel_platform_tag(lib)`` reads what an ELF shared library asks of the
system it loads on -- the libraries it names as DT_NEEDED and the symbol
versions it needs from them (.gnu.version_r: GLIBC_2.x, GLIBCXX_3.4.x,
CXXABI_1.3.x, GCC_x) -- and returns the lowest manylinux tag (PEP 600)
whose policy allows all of it, e.g. ``manylinux_2_17_x86_64``. When no
policy does, or a ``target`` policy does not, it raises PolicyError listing
every violation: which library or symbol version, the symbols that need it,
and the policy it breaks.

``wheel_tag_set(tag)`` is the platform part of the wheel's file name: the
tag and, where PEP 600 defines one, its legacy alias, as a compressed tag
set (``manylinux_2_17_x86_64.manylinux2014_x86_64``: older pip knows only
the second); the WHEEL file has a Tag line for each (``wheel_tags``).

``check_wheel(whl)`` checks every ELF file in a wheel and that the tags its
WHEEL file and its file name claim (a compressed set included) are ones
those files satisfy.

How libgfxcuda.so is linked so that it needs little (prepare_link) is at
the end of this file.

Command line::

    python3 python/build_backend/manylinux.py LIB_OR_WHEEL...   # prints the tag; exit 1 and the reasons
    python3 python/build_backend/manylinux.py --why LIB         # and which symbols pin it
    python3 python/build_backend/manylinux.py --target manylinux_2_28 LIB
    python3 python/build_backend/manylinux.py --link-flags      # CGO_LDFLAGS for `make lib`

Standard library only: it runs inside pip's isolated build environment.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import tempfile
import zipfile

__all__ = [
    "PolicyError", "ELFError", "ElfNeeds", "read_elf", "wheel_platform_tag", "platform_tag",
    "check_wheel", "policy_names", "wheel_tags", "wheel_tag_set", "prepare_link",
]


class PolicyError(Exception):
    """A library (or wheel) breaks the manylinux policy. ``violations`` is
    the list of reasons, each naming the library or symbol version and the
    policy; ``policy`` the policy they were checked against (None when the
    file could not be read at all); ``path`` the file."""

    def __init__(self, path, violations, policy=None):
        self.path = str(path)
        self.violations = list(violations)
        self.policy = policy
        head = "%s breaks %s:" % (self.path, policy) if policy else "%s:" % self.path
        super().__init__(head + "".join("\n  - " + v for v in self.violations))


class ELFError(PolicyError):
    """The file is not an ELF shared library this module can read (not ELF
    at all, truncated, or of a kind that names no dynamic dependencies)."""

    def __init__(self, path, reason):
        super().__init__(path, [reason])
        self.args = ("%s %s" % (self.path, reason),)

    def __str__(self):
        return self.args[0]


# --- the manylinux policies ---------------------------------------------------
#
# The facts are auditwheel's (pypa/auditwheel, src/auditwheel/policy/
# manylinux-policy.json, read 2026-11 at 86154d1), for the two architectures
# gfxcuda builds for. A policy allows, for each symbol-version family, the
# numeric versions of _VERSIONS up to its bound in _POLICIES plus the named
# versions (TM_1, FLOAT128, ABI_DT_RELR) it lists; "-" allows none of the
# family. This is auditwheel's set for every policy and family, exactly
# (checked when the table was written); versions a policy does not list --
# GLIBC_PRIVATE, or ones newer than its bound -- break it.

# The families whose versions the policies list alike on both machines.
_SAME_ON_BOTH = {
    "GLIBCXX": " ".join("3.4" if i == 0 else "3.4.%d" % i for i in range(34)),
    "CXXABI": " ".join("1.3" if i == 0 else "1.3.%d" % i for i in range(16)),
    "LIBATOMIC": "1.0 1.1 1.2",
    "ZLIB": "1.2.0 1.2.0.2 1.2.0.8 1.2.2 1.2.2.3 1.2.2.4 1.2.3.3 1.2.3.4 1.2.3.5 1.2.5.1 1.2.5.2 "
            "1.2.7.1 1.2.9 1.2.12",
}

_VERSIONS = {
    "x86_64": dict(_SAME_ON_BOTH, **{
        "GLIBC": "2.2.5 2.2.6 2.3 2.3.2 2.3.3 2.3.4 2.4 2.5 2.6 2.7 2.8 2.9 2.10 2.11 2.12 2.13 2.14 "
                 "2.15 2.16 2.17 2.18 2.22 2.23 2.24 2.25 2.26 2.27 2.28 2.29 2.30 2.31 2.32 2.33 2.34 "
                 "2.35 2.36 2.38 2.39 2.40 2.41",
        "GCC": "3.0 3.3 3.3.1 3.4 3.4.2 3.4.4 4.0.0 4.2.0 4.3.0 4.7.0 4.8.0 7.0.0 12.0.0 13.0.0 14.0.0",
    }),
    "aarch64": dict(_SAME_ON_BOTH, **{
        "GLIBC": "2.0 2.17 2.18 2.22 2.23 2.24 2.25 2.26 2.27 2.28 2.29 2.30 2.31 2.32 2.33 2.34 2.35 "
                 "2.36 2.38 2.39 2.40 2.41",
        "GCC": "3.0 3.3 3.3.1 3.4 3.4.2 3.4.4 4.0.0 4.2.0 4.3.0 4.5.0 4.7.0 7.0.0 11.0 13.0.0 14.0 14.0.0",
    }),
}

_FAMILIES = ("GLIBC", "GLIBCXX", "CXXABI", "GCC", "LIBATOMIC", "ZLIB")

# policy, its legacy alias, then the highest version of each family in
# _FAMILIES order, then the named versions allowed besides.
_POLICIES = {
    "x86_64": """
        manylinux_2_5  manylinux1     2.5  3.4.8  1.3.1  4.2.0  -    -        -
        manylinux_2_12 manylinux2010  2.12 3.4.13 1.3.3  4.3.0  -    1.2.2.4  -
        manylinux_2_17 manylinux2014  2.17 3.4.19 1.3.7  4.8.0  -    1.2.5.2  CXXABI_TM_1
        manylinux_2_24 -              2.24 3.4.22 1.3.10 4.8.0  1.2  1.2.5.2  CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_26 -              2.26 3.4.22 1.3.10 4.8.0  1.2  1.2.5.2  CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_27 -              2.27 3.4.24 1.3.11 7.0.0  1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_28 -              2.28 3.4.24 1.3.11 7.0.0  1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_31 -              2.31 3.4.28 1.3.12 7.0.0  1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_34 -              2.34 3.4.29 1.3.13 7.0.0  1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_35 -              2.35 3.4.30 1.3.13 12.0.0 1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1
        manylinux_2_36 -              2.36 3.4.30 1.3.13 12.0.0 1.2  1.2.9    CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_37 -              2.36 3.4.30 1.3.13 12.0.0 1.2  1.2.12   CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_38 -              2.38 3.4.30 1.3.13 12.0.0 1.2  1.2.12   CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_39 -              2.39 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_40 -              2.40 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_41 -              2.41 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_FLOAT128,CXXABI_TM_1,GLIBC_ABI_DT_RELR
    """,
    "aarch64": """
        manylinux_2_17 manylinux2014  2.18 3.4.19 1.3.7  4.7.0  1.0  1.2.5.2  CXXABI_TM_1
        manylinux_2_24 -              2.24 3.4.22 1.3.10 4.7.0  1.2  1.2.5.2  CXXABI_TM_1
        manylinux_2_26 -              2.26 3.4.24 1.3.11 7.0.0  1.2  1.2.5.2  CXXABI_TM_1
        manylinux_2_27 -              2.27 3.4.24 1.3.11 7.0.0  1.2  1.2.9    CXXABI_TM_1
        manylinux_2_28 -              2.28 3.4.24 1.3.11 7.0.0  1.2  1.2.9    CXXABI_TM_1
        manylinux_2_31 -              2.31 3.4.28 1.3.12 7.0.0  1.2  1.2.9    CXXABI_TM_1
        manylinux_2_34 -              2.34 3.4.29 1.3.13 11.0   1.2  1.2.9    CXXABI_TM_1
        manylinux_2_35 -              2.35 3.4.30 1.3.13 11.0   1.2  1.2.9    CXXABI_TM_1
        manylinux_2_36 -              2.36 3.4.30 1.3.13 11.0   1.2  1.2.9    CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_37 -              2.36 3.4.30 1.3.13 11.0   1.2  1.2.12   CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_38 -              2.38 3.4.30 1.3.13 11.0   1.2  1.2.12   CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_39 -              2.39 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_40 -              2.40 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_TM_1,GLIBC_ABI_DT_RELR
        manylinux_2_41 -              2.41 3.4.33 1.3.15 14.0.0 1.2  1.2.12   CXXABI_TM_1,GLIBC_ABI_DT_RELR
    """,
}

# The libraries every manylinux policy allows as DT_NEEDED: they are part of
# every system the tag names, so a wheel need not carry them.
_ALLOWED_NEEDED = (
    "libc.so.6 libm.so.6 libdl.so.2 librt.so.1 libpthread.so.0 libresolv.so.2 libutil.so.1 libnsl.so.1 "
    "libanl.so.1 libgcc_s.so.1 libstdc++.so.6 libatomic.so.1 libz.so.1 libGL.so.1 libX11.so.6 "
    "libXext.so.6 libXrender.so.1 libICE.so.6 libSM.so.6 libglib-2.0.so.0 libgobject-2.0.so.0 "
    "libgthread-2.0.so.0").split()
_ALLOWED_NEEDED_SINCE = {"libexpat.so.1": (2, 12), "libmvec.so.1": (2, 24)}

# Symbols a policy forbids though their library is allowed (they are not in
# that glibc, or are zlib's internals): (the last policy that forbids them,
# library, names).
_FORBIDDEN_SYMBOLS = [
    ((2, 17), "libc.so.6", "__cxa_thread_atexit_impl __issignaling __issignalingf __issignalingl "
                           "pthread_getattr_default_np pthread_setattr_default_np"),
    ((2, 17), "libm.so.6", "__issignaling __issignalingf __issignalingl"),
    ((2, 17), "libpthread.so.0", "pthread_getattr_default_np pthread_setattr_default_np"),
    ((2, 31), "libz.so.1", "uncompress2"),
    ((2, 35), "libz.so.1", "bi_windup crc_fold_512to32 crc_fold_copy crc_fold_init deflate_medium fill_window "
                           "flush_pending longest_match slide_hash_sse static_ltree x86_check_features "
                           "x86_cpu_has_pclmul x86_cpu_has_sse2 x86_cpu_has_sse42"),
    ((2, 36), "libz.so.1", "crc32_combine_gen crc32_combine_gen64 crc32_combine_op"),
    ((99, 0), "libz.so.1", "_dist_code _length_code _tr_align _tr_flush_block _tr_init _tr_stored_block _tr_tally "
                           "adler32_default crc32_acle crc32_le_vgfm_16 crc32_neon crc32_vpmsum crc32_z_default "
                           "deflate_copyright gzflags inflate_copyright inflate_fast inflate_table sse2_slide_hash "
                           "z_errmsg z_vstring zcalloc zcfree"),
]

# The ELF dynamic loader is named as NEEDED by many libraries (for
# __tls_get_addr, say); it is the system itself, never a policy matter.
_LOADERS = re.compile(r"^(ld-linux[-.].*|ld64\.so\.[12])$")


def _vkey(v):
    """A numeric version's sort key, or None for a named one (TM_1)."""
    try:
        return tuple(int(p) for p in v.split("."))
    except ValueError:
        return None


class _Policy(object):
    __slots__ = ("name", "alias", "arch", "glibc", "allowed", "bounds", "needed", "forbidden")

    def __init__(self, arch, row):
        cols = row.split()
        self.name, alias = cols[0], cols[1]
        self.alias = None if alias == "-" else alias
        self.arch = arch
        self.glibc = tuple(int(p) for p in self.name.split("_")[1:3])
        self.bounds = dict(zip(_FAMILIES, cols[2:8]))
        named = [] if cols[8] == "-" else cols[8].split(",")
        self.allowed = {}
        for fam, bound in self.bounds.items():
            vs = set()
            if bound != "-":
                for v in _VERSIONS[arch][fam].split():
                    if _vkey(v) <= _vkey(bound):
                        vs.add(v)
            self.allowed[fam] = vs
        for n in named:
            fam, _, v = n.partition("_")
            self.allowed[fam].add(v)
        self.needed = set(_ALLOWED_NEEDED) | {l for l, since in _ALLOWED_NEEDED_SINCE.items() if self.glibc >= since}
        self.forbidden = {}
        for last, lib, names in _FORBIDDEN_SYMBOLS:
            if self.glibc <= last:
                self.forbidden.setdefault(lib, set()).update(names.split())

    def tag(self):
        return "%s_%s" % (self.name, self.arch)


_POLICY_CACHE = {}


def _policies(arch):
    """The policies for arch, lowest glibc first; PolicyError when this
    module has none for it."""
    if arch not in _POLICY_CACHE:
        if arch not in _POLICIES:
            raise ValueError("no manylinux policy data for %r here: this tool knows %s"
                             % (arch, " and ".join(sorted(_POLICIES))))
        _POLICY_CACHE[arch] = [_Policy(arch, r) for r in _POLICIES[arch].strip().splitlines()]
    return _POLICY_CACHE[arch]


def policy_names(arch="x86_64"):
    """The manylinux policies known for arch, lowest first (e.g.
    ["manylinux_2_17", ..., "manylinux_2_41"] for aarch64)."""
    return [p.name for p in _policies(arch)]


def _find_policy(target, arch):
    """The highest policy target allows: a name (manylinux_2_28), with or
    without the arch suffix, a legacy alias (manylinux2014) or a glibc
    version (2.28, 2_28). ValueError naming the known ones otherwise."""
    t = str(target).strip()
    if t.endswith("_" + arch):
        t = t[: -len(arch) - 1]
    pols = _policies(arch)
    for p in pols:
        if t in (p.name, p.alias):
            return p
    m = re.match(r"^(?:manylinux_)?(\d+)[._](\d+)$", t)
    if m:
        want = (int(m.group(1)), int(m.group(2)))
        fit = [p for p in pols if p.glibc <= want]
        if fit:
            return fit[-1]
    raise ValueError("target %r is not a manylinux policy for %s: use one of %s (or an alias: %s)"
                     % (target, arch, ", ".join(p.name for p in pols),
                        ", ".join(p.alias for p in pols if p.alias)))


# --- reading ELF ----------------------------------------------------------------

_MACHINES = {3: "i686", 40: "armv7l", 62: "x86_64", 183: "aarch64", 21: "ppc64", 22: "s390x",
             243: "riscv64", 258: "loongarch64"}

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NEEDED, _DT_HASH, _DT_STRTAB, _DT_SYMTAB, _DT_STRSZ, _DT_SONAME = 1, 4, 5, 6, 10, 14
_DT_GNU_HASH, _DT_VERSYM, _DT_VERNEED, _DT_VERNEEDNUM = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFE, 0x6FFFFFFF


class ElfNeeds(object):
    """What an ELF file needs from the system it loads on.

    path, arch (x86_64, aarch64, ...), soname (or None), needed (its
    DT_NEEDED libraries, in order), versions ({library: set of version
    names}, from .gnu.version_r), symbols ({(library, version): sorted
    undefined symbols bound to that version}) and undefined (every
    undefined dynamic symbol's name)."""

    def __init__(self, path, arch, soname, needed, versions, symbols, undefined):
        self.path, self.arch, self.soname = path, arch, soname
        self.needed, self.versions, self.symbols, self.undefined = needed, versions, symbols, undefined

    def __repr__(self):
        return "ElfNeeds(%r, arch=%r, needed=%r)" % (self.path, self.arch, self.needed)


def read_elf(path):
    """Reads what the ELF file at path needs (an ElfNeeds), from its
    program headers and dynamic section, as the dynamic loader does.
    ELFError when it is not ELF, is truncated or has no dynamic section."""
    path = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ELFError(path, "cannot be read: %s" % (e.strerror or e))
    if data[:4] != b"\x7fELF":
        what = "empty" if not data else "starts with %r" % data[:8]
        raise ELFError(path, "is not an ELF file (%s): give a built shared library (.so)" % what)
    try:
        return _parse(path, data)
    except (struct.error, IndexError, ValueError) as e:
        raise ELFError(path, "is a truncated or malformed ELF file (%s)" % e)


def _parse(path, data):
    cls, enc = data[4], data[5]
    if cls not in (1, 2) or enc not in (1, 2):
        raise ELFError(path, "has an unknown ELF class or byte order (EI_CLASS %d, EI_DATA %d)" % (cls, enc))
    is64, end = cls == 2, "<" if enc == 1 else ">"
    (machine,) = struct.unpack_from(end + "H", data, 18)
    arch = _MACHINES.get(machine, "machine %d" % machine)
    if arch == "ppc64" and enc == 1:
        arch = "ppc64le"
    if is64:
        (phoff,) = struct.unpack_from(end + "Q", data, 32)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 54)
        phfmt, dynfmt, symfmt = end + "IIQQQQQQ", end + "qQ", end + "IBBHQQ"
    else:
        (phoff,) = struct.unpack_from(end + "I", data, 28)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 42)
        phfmt, dynfmt, symfmt = end + "IIIIIIII", end + "iI", end + "IIIBBH"
    loads, dyn = [], None
    for i in range(phnum):
        ph = struct.unpack_from(phfmt, data, phoff + i * phentsize)
        if is64:
            ptype, offset, vaddr, filesz = ph[0], ph[2], ph[3], ph[5]
        else:
            ptype, offset, vaddr, filesz = ph[0], ph[1], ph[2], ph[4]
        if ptype == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif ptype == _PT_DYNAMIC:
            dyn = (offset, filesz)
    if dyn is None:
        raise ELFError(path, "has no dynamic section: a static program or an object file, "
                             "not a shared library (%s)" % arch)

    def off(vaddr, what):
        for va, fo, sz in loads:
            if va <= vaddr < va + sz:
                return fo + (vaddr - va)
        raise ValueError("%s at 0x%x is outside the file's loaded segments" % (what, vaddr))

    tags = []
    step = struct.calcsize(dynfmt)
    for i in range(dyn[1] // step):
        tag, val = struct.unpack_from(dynfmt, data, dyn[0] + i * step)
        if tag == 0:
            break
        tags.append((tag, val))
    one = dict(tags)
    if _DT_STRTAB not in one:
        raise ELFError(path, "has a dynamic section without a string table (DT_STRTAB)")
    stroff = off(one[_DT_STRTAB], "the string table")
    strend = stroff + one.get(_DT_STRSZ, len(data) - stroff)

    def string(i):
        start = stroff + i
        if not stroff <= start < strend:
            raise ValueError("string %d is outside the string table" % i)
        stop = data.index(b"\0", start)
        return data[start:stop].decode("utf-8", "replace")

    needed = [string(v) for t, v in tags if t == _DT_NEEDED]
    soname = string(one[_DT_SONAME]) if _DT_SONAME in one else None

    versions, index = {}, {}  # library -> {version}; version index -> (library, version)
    if _DT_VERNEED in one:
        pos = off(one[_DT_VERNEED], "the version needs (.gnu.version_r)")
        for _ in range(one.get(_DT_VERNEEDNUM, 0)):
            _vn_version, cnt, vfile, aux, nxt = struct.unpack_from(end + "HHIII", data, pos)
            lib = string(vfile)
            apos = pos + aux
            for _ in range(cnt):
                _hash, _flags, other, name, anext = struct.unpack_from(end + "IHHII", data, apos)
                v = string(name)
                versions.setdefault(lib, set()).add(v)
                index[other & 0x7FFF] = (lib, v)
                if not anext:
                    break
                apos += anext
            if not nxt:
                break
            pos += nxt

    symbols, undefined = {}, set()
    if _DT_SYMTAB in one:
        symoff = off(one[_DT_SYMTAB], "the dynamic symbol table")
        nsyms = _symbol_count(data, end, is64, one, off)
        versym = off(one[_DT_VERSYM], "the symbol versions (.gnu.version)") if _DT_VERSYM in one else None
        size = struct.calcsize(symfmt)
        for i in range(1, nsyms):
            s = struct.unpack_from(symfmt, data, symoff + i * size)
            name, shndx = s[0], (s[3] if is64 else s[5])
            if shndx != 0 or not name:
                continue
            n = string(name)
            undefined.add(n)
            if versym is not None:
                (vi,) = struct.unpack_from(end + "H", data, versym + 2 * i)
                lv = index.get(vi & 0x7FFF)
                if lv:
                    symbols.setdefault(lv, []).append(n)
    for k in symbols:
        symbols[k].sort()
    return ElfNeeds(path, arch, soname, needed, versions, symbols, undefined)


def _symbol_count(data, end, is64, one, off):
    """The number of dynamic symbols, from DT_HASH or DT_GNU_HASH (the
    dynamic section does not say it otherwise)."""
    if _DT_HASH in one:
        return struct.unpack_from(end + "II", data, off(one[_DT_HASH], "DT_HASH"))[1]
    if _DT_GNU_HASH not in one:
        return 0
    pos = off(one[_DT_GNU_HASH], "DT_GNU_HASH")
    nbuckets, symoffset, bloom, _shift = struct.unpack_from(end + "IIII", data, pos)
    buckets = pos + 16 + bloom * (8 if is64 else 4)
    chains = buckets + 4 * nbuckets
    top = max(struct.unpack_from(end + "%dI" % nbuckets, data, buckets)) if nbuckets else 0
    if top < symoffset:
        return symoffset
    while True:
        (h,) = struct.unpack_from(end + "I", data, chains + 4 * (top - symoffset))
        top += 1
        if h & 1:
            return top


# --- checking -------------------------------------------------------------------


def _shown(names, most=6):
    names = list(names)
    s = ", ".join(names[:most])
    return s + (", ... %d more" % (len(names) - most) if len(names) > most else "")


def _violations(needs, policy):
    """Every way needs breaks policy, as sentences."""
    out = []
    for lib in needs.needed:
        if _LOADERS.match(lib) or lib in policy.needed:
            continue
        out.append("it needs %s (DT_NEEDED), which %s does not allow: only the system libraries every "
                   "such system has (%s, ...) may be needed; load %s at run time (dlopen) or bundle it "
                   "(auditwheel repair)" % (lib, policy.name, ", ".join(_ALLOWED_NEEDED[:8]), lib))
    for lib in sorted(needs.versions):
        if _LOADERS.match(lib):
            continue
        for v in sorted(needs.versions[lib], key=lambda v: (v.partition("_")[0], _vkey(v.partition("_")[2]) or (), v)):
            fam, _, num = v.partition("_")
            if fam not in policy.allowed or num in policy.allowed[fam]:
                continue
            syms = needs.symbols.get((lib, v), [])
            bound = policy.bounds[fam]
            limit = ("no %s versions" % fam) if bound == "-" else ("%s up to %s_%s" % (fam, fam, bound))
            out.append("%s from %s%s: %s allows %s" % (v, lib, " (%s)" % _shown(syms) if syms else "",
                                                        policy.name, limit))
    # A function glibc moved into libc, asked of libc.so.6 at its old
    # version (a .symver to an old version, linked on a new glibc): libc.so.6
    # has it only since the move, and glibc before 2.30 does not look on
    # past the library a reference names.
    late = {}
    for (lib, v), syms in needs.symbols.items():
        if lib != "libc.so.6":
            continue
        for s in syms:
            home = _moved_home().get(s)
            if home and policy.glibc < home[1]:
                late.setdefault(home, []).append("%s@%s" % (s, v))
    for (old, since), syms in sorted(late.items()):
        out.append("it asks libc.so.6 for %s, which libc.so.6 has only since glibc %d.%d (%s before, and "
                   "glibc before 2.30 looks no further than the library a reference names): %s is glibc %d.%d; "
                   "link against %s (manylinux.py's link directory)"
                   % (_shown(sorted(syms)), since[0], since[1], old, policy.name, policy.glibc[0],
                      policy.glibc[1], old))
    for lib, names in sorted(policy.forbidden.items()):
        if lib in needs.needed:
            bad = sorted(names & needs.undefined)
            if bad:
                out.append("it uses %s from %s, which %s forbids" % (_shown(bad), lib, policy.name))
    return out


def _lowest(needs, arch, target):
    """(policy, None) for the lowest policy needs satisfies, or (policy,
    violations) for the one whose violations say best why none does."""
    pols = _policies(arch)
    cap = _find_policy(target, arch) if target else pols[-1]
    fit = [p for p in pols if p.glibc <= cap.glibc]
    for p in fit:
        if not _violations(needs, p):
            return p, None
    if target:
        return cap, _violations(needs, cap)
    # The lowest policy its symbol versions allow (only NEEDED breaks it), else the highest.
    for p in fit:
        v = _violations(needs, p)
        if all(s.startswith("it needs ") for s in v):
            return p, v
    return cap, _violations(needs, cap)


def _arch_of(needs, arch):
    if arch and arch != needs.arch:
        raise PolicyError(needs.path, ["it is an %s library, not %s" % (needs.arch, arch)])
    if needs.arch not in _POLICIES:
        raise PolicyError(needs.path, ["it is an %s library: this tool has manylinux policies for %s only"
                                       % (needs.arch, " and ".join(sorted(_POLICIES)))])
    return needs.arch


def wheel_platform_tag(lib_path, arch=None, target=None):
    """The lowest manylinux platform tag lib_path satisfies, e.g.
    "manylinux_2_17_x86_64".

    arch: the architecture the wheel is for (x86_64, aarch64); None takes
    the library's own. target: the highest policy acceptable -- a name
    ("manylinux_2_28", "manylinux2014") or a glibc version ("2.28"); None
    accepts any. Raises PolicyError listing every violation (a NEEDED
    library the policy does not allow, a symbol version beyond it, a
    forbidden symbol) when no acceptable policy is satisfied, ELFError
    (a PolicyError) when lib_path is not an ELF shared library, and
    ValueError for a target that names no policy."""
    needs = read_elf(lib_path)
    a = _arch_of(needs, arch)
    p, bad = _lowest(needs, a, target)
    if bad:
        raise PolicyError(needs.path, bad, p.tag())
    return p.tag()


def platform_tag(paths, arch=None, target=None):
    """The tag a wheel holding all of paths can have: the highest of their
    wheel_platform_tag()s. PolicyError listing every file's violations."""
    best, errors = None, []
    for path in paths:
        try:
            tag = wheel_platform_tag(path, arch=arch, target=target)
        except PolicyError as e:
            errors.append(e)
            continue
        if best is None or _tag_glibc(tag) > _tag_glibc(best):
            best = tag
    if errors:
        if len(errors) == 1:
            raise errors[0]
        raise PolicyError(", ".join(e.path for e in errors),
                          ["%s: %s" % (e.path, v) for e in errors for v in e.violations])
    if best is None:
        raise ValueError("no library given")
    return best


def _tag_glibc(tag):
    m = re.match(r"^manylinux_(\d+)_(\d+)_", tag)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


_LEGACY = {"manylinux1": "manylinux_2_5", "manylinux2010": "manylinux_2_12", "manylinux2014": "manylinux_2_17"}

# The architectures PEP 600 gives each legacy name for (its "Legacy
# manylinux tags" section): manylinux1 and manylinux2010 were defined for
# x86_64 and i686 only, manylinux2014 for these seven.
_LEGACY_ARCHES = {
    "manylinux1": ("x86_64", "i686"),
    "manylinux2010": ("x86_64", "i686"),
    "manylinux2014": ("x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"),
}


def _legacy_to_pep600(plat):
    """plat with a legacy name (manylinux2014_x86_64) in PEP 600's
    (manylinux_2_17_x86_64); any other tag as it is."""
    for old, new in _LEGACY.items():
        if plat.startswith(old + "_"):
            return new + plat[len(old):]
    return plat


def wheel_tags(tag):
    """The platform tags a wheel of platform tag carries: tag in PEP 600's
    form, then its legacy alias where PEP 600 defines one for that
    architecture (manylinux_2_5: manylinux1, manylinux_2_12: manylinux2010,
    manylinux_2_17: manylinux2014): pip knows the PEP 600 names from 20.3
    on, manylinux2014 from 19.3, manylinux2010 from 19.0, manylinux1 from
    8.1. tag may be a legacy name or a compressed set; other tags
    (linux_x86_64) come back alone."""
    out = []
    for plat in str(tag).split("."):
        plat = _legacy_to_pep600(plat)
        m = re.match(r"^(manylinux_\d+_\d+)_(.+)$", plat)
        names = [plat]
        if m:
            for old, new in _LEGACY.items():
                if new == m.group(1) and m.group(2) in _LEGACY_ARCHES[old]:
                    names.append("%s_%s" % (old, m.group(2)))
        out += [n for n in names if n not in out]
    return out


def wheel_tag_set(tag):
    """The compressed tag set (PEP 425: tags joined by dots) of wheel_tags(tag),
    for the platform part of a wheel's file name, e.g.
    "manylinux_2_17_x86_64.manylinux2014_x86_64" for "manylinux_2_17_x86_64";
    its WHEEL file has one Tag line for each."""
    return ".".join(wheel_tags(tag))


def check_wheel(whl, target=None):
    """Checks a wheel: every ELF file in it against the manylinux policies,
    and every platform tag its WHEEL file (and its file name) claims against
    what those files need. Returns the lowest tag the files satisfy;
    PolicyError listing every problem otherwise."""
    whl = str(whl)
    problems, claimed, elves = [], [], []
    try:
        z = zipfile.ZipFile(whl)
    except (OSError, zipfile.BadZipFile) as e:
        raise PolicyError(whl, ["is not a wheel (a zip file): %s" % e])
    with z, tempfile.TemporaryDirectory(prefix="manylinux-check-") as tmp:
        for info in z.infolist():
            if info.filename.endswith("/"):
                continue
            with z.open(info) as f:
                head = f.read(4)
            if head == b"\x7fELF":
                dest = os.path.join(tmp, "%d-%s" % (len(elves), os.path.basename(info.filename)))
                with z.open(info) as src, open(dest, "wb") as out:
                    out.write(src.read())
                elves.append((info.filename, dest))
            elif re.match(r"^[^/]+\.dist-info/WHEEL$", info.filename):
                text = z.read(info).decode("utf-8", "replace")
                claimed += re.findall(r"(?m)^Tag:\s*(\S+)\s*$", text)
        if not claimed:
            problems.append("its .dist-info/WHEEL names no Tag")
        m = re.match(r"^[^-]+-[^-]+(?:-\d[^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl$", os.path.basename(whl))
        if m:
            plats = m.group(3).split(".")
            for tag in claimed:
                if tag.split("-")[-1] not in plats:
                    problems.append("its WHEEL claims %s, which its file name (platform %s) does not" % (tag, m.group(3)))
            # A compressed tag set: a Tag line for each of its platforms.
            said = {t.split("-")[-1] for t in claimed}
            for plat in plats:
                if claimed and plat not in said:
                    problems.append("its file name claims platform %s, for which its WHEEL has no Tag line" % plat)
        plats = sorted({t.split("-")[-1] for t in claimed})
        best = None
        if not elves:
            if any(p != "any" for p in plats):
                problems.append("it holds no ELF file, yet claims platform %s" % ", ".join(plats))
        needs = []
        for name, dest in elves:
            try:
                n = read_elf(dest)
            except ELFError as e:
                problems.append("%s %s" % (name, e.violations[0]))
                continue
            n.path = name
            needs.append(n)
        for n in needs:
            try:
                a = _arch_of(n, None)
            except PolicyError as e:
                problems += ["%s: %s" % (n.path, v) for v in e.violations]
                continue
            p, bad = _lowest(n, a, target)
            if bad:
                problems += ["%s: %s" % (n.path, v) for v in bad]
            elif best is None or p.glibc > _tag_glibc(best):
                best = p.tag()
        for plat in plats:
            if plat == "any" and not elves:
                continue
            name = _legacy_to_pep600(plat)
            m2 = re.match(r"^(manylinux_\d+_\d+)_(.+)$", name)
            if not m2:
                problems.append("its WHEEL claims platform %s, which says nothing about the systems it runs on "
                                "and which package indexes refuse; its libraries allow %s"
                                % (plat, best or "no manylinux tag"))
                continue
            pol, arch = m2.group(1), m2.group(2)
            for n in needs:
                if n.arch != arch:
                    problems.append("its WHEEL claims %s, but %s is an %s library" % (plat, n.path, n.arch))
                    continue
                try:
                    p = _find_policy(pol, arch)
                except ValueError as e:
                    problems.append("its WHEEL claims %s: %s" % (plat, e))
                    break
                bad = _violations(n, p)
                problems += ["its WHEEL claims %s, but %s: %s" % (plat, n.path, v) for v in bad]
    if problems:
        raise PolicyError(whl, problems)
    return best or "any"


def _why(needs):
    """Lines saying what needs asks of the system: NEEDED, and the newest
    version of each family with the symbols that need it."""
    lines = ["NEEDED: %s" % (", ".join(needs.needed) or "nothing")]
    top = {}
    for lib, vs in needs.versions.items():
        if _LOADERS.match(lib):
            continue
        for v in vs:
            fam, _, num = v.partition("_")
            k = _vkey(num)
            if k is None:
                continue
            if fam not in top or k > top[fam][0]:
                top[fam] = (k, [(lib, v)])
            elif k == top[fam][0]:
                top[fam][1].append((lib, v))
    for fam in sorted(top):
        for lib, v in top[fam][1]:
            lines.append("newest %s: %s from %s (%s)" % (fam, v, lib, _shown(needs.symbols.get((lib, v), []), 8)))
    return lines


# --- linking libgfxcuda.so for manylinux ------------------------------------------
#
# Built on a new Linux (Debian 12: glibc 2.36, GCC 12) as-is, the library
# needs GLIBC_2.34 (pthread_*, dl*, res_search: glibc 2.34 moved them from
# libpthread, libdl and libresolv into libc under new versions) and
# libstdc++.so.6 with GLIBCXX_3.4.29 (shaderc is C++): manylinux_2_34. Two
# changes bring it down to what the oldest policies allow:
#
#   1. libstdc++ is linked statically, and -Wl,--exclude-libs,ALL keeps its
#      symbols (and shaderc's) out of the library's exports, so they never
#      mix with another libstdc++ in the process. The link directory holds a
#      linker script named libstdc++.so that names the C compiler's
#      libstdc++.a: the -lstdc++ of internal/shaderc's #cgo LDFLAGS finds it
#      first. (Making that -lstdc++ static would do it for every program
#      built with shaderc too, whose libstdc++ symbols Go's -rdynamic would
#      then export: #cgo LDFLAGS may not say --exclude-libs.)
#   2. The link directory holds link-time stand-ins for libpthread.so.0,
#      libdl.so.2 and libresolv.so.2 that define the symbols glibc moved into
#      libc (_MOVED) at the versions and in the libraries glibc 2.17 to 2.33
#      have them. The linker binds the library's references to them, so the
#      library asks libpthread.so.0 for pthread_create@GLIBC_2.2.5, as a
#      library built on an old glibc does; every glibc has that (2.34 and
#      later in libc, and their loader finds it there: glibc 2.30 and later
#      search on when a symbol moved between libraries). They are needed
#      (--no-as-needed) so that an old glibc loads them. At run time the
#      system's real libraries are used; the stand-ins are never shipped.
#
# cmd/libgfxcuda/glibc_compat_linux_amd64.c does the rest (math functions at
# their GLIBC_2.2.5 versions, fstat64, getentropy, arc4random and
# __libc_single_threaded, which have no older version). The versions in
# _MOVED are glibc 2.17's and 2.28's (their x86_64 .abilist files agree);
# glibc 2.36's libc defines each at that version too. x86_64 only: other
# architectures' glibc started at other versions, and nothing here tests them.

_MOVED = {
    "libpthread.so.0": {
        "2.2.5": "__pthread_key_create _pthread_cleanup_pop _pthread_cleanup_push pthread_attr_getguardsize "
                 "pthread_attr_getstack pthread_attr_getstackaddr pthread_attr_getstacksize "
                 "pthread_attr_setguardsize pthread_attr_setstack pthread_attr_setstackaddr "
                 "pthread_attr_setstacksize pthread_barrier_destroy pthread_barrier_init pthread_barrier_wait "
                 "pthread_barrierattr_destroy pthread_barrierattr_init pthread_barrierattr_setpshared "
                 "pthread_cancel pthread_condattr_getpshared pthread_condattr_setpshared pthread_create "
                 "pthread_detach pthread_getattr_np pthread_getconcurrency pthread_getcpuclockid "
                 "pthread_getspecific pthread_join pthread_key_create pthread_key_delete pthread_kill "
                 "pthread_mutex_timedlock pthread_mutex_trylock pthread_mutexattr_destroy "
                 "pthread_mutexattr_getpshared pthread_mutexattr_gettype pthread_mutexattr_init "
                 "pthread_mutexattr_setpshared pthread_mutexattr_settype pthread_once pthread_rwlock_destroy "
                 "pthread_rwlock_init pthread_rwlock_rdlock pthread_rwlock_timedrdlock "
                 "pthread_rwlock_timedwrlock pthread_rwlock_tryrdlock pthread_rwlock_trywrlock "
                 "pthread_rwlock_unlock pthread_rwlock_wrlock pthread_rwlockattr_destroy "
                 "pthread_rwlockattr_getkind_np pthread_rwlockattr_getpshared pthread_rwlockattr_init "
                 "pthread_rwlockattr_setkind_np pthread_rwlockattr_setpshared pthread_setconcurrency "
                 "pthread_setspecific pthread_sigmask pthread_spin_destroy pthread_spin_init pthread_spin_lock "
                 "pthread_spin_trylock pthread_spin_unlock pthread_testcancel sem_close sem_destroy "
                 "sem_getvalue sem_init sem_open sem_post sem_timedwait sem_trywait sem_unlink sem_wait",
        "2.3.3": "__pthread_cleanup_routine __pthread_register_cancel __pthread_register_cancel_defer "
                 "__pthread_unregister_cancel __pthread_unregister_cancel_restore __pthread_unwind_next "
                 "pthread_barrierattr_getpshared pthread_condattr_getclock pthread_condattr_setclock "
                 "pthread_timedjoin_np pthread_tryjoin_np",
        "2.3.4": "pthread_attr_getaffinity_np pthread_attr_setaffinity_np pthread_getaffinity_np "
                 "pthread_setaffinity_np pthread_setschedprio",
        "2.4": "pthread_mutex_getprioceiling pthread_mutex_setprioceiling pthread_mutexattr_getprioceiling "
               "pthread_mutexattr_getprotocol pthread_mutexattr_setprioceiling pthread_mutexattr_setprotocol",
        "2.11": "pthread_sigqueue",
        "2.12": "pthread_getname_np pthread_mutex_consistent pthread_mutexattr_getrobust "
                "pthread_mutexattr_setrobust pthread_setname_np",
    },
    "libdl.so.2": {
        "2.2.5": "dladdr dlclose dlerror dlopen dlsym dlvsym",
        "2.3.3": "dladdr1 dlinfo",
        "2.3.4": "dlmopen",
    },
    "libresolv.so.2": {
        # Go's resolver calls res_search; glibc before 2.34 exports it as
        # __res_search only (resolv.h renamed it): glibc_compat_linux_amd64.c
        # forwards one to the other.
        "2.2.5": "__res_search",
        "2.9": "ns_name_compress ns_name_ntop ns_name_pack ns_name_pton ns_name_skip ns_name_uncompress "
               "ns_name_unpack",
    },
}

# glibc moved these four into libc in 2.32; the rest of _MOVED in 2.34.
_MOVED_IN_2_32 = {"pthread_attr_setaffinity_np", "pthread_getaffinity_np", "pthread_getattr_np", "pthread_sigmask"}
_MOVED_HOME: dict = {}


def _moved_home():
    """{symbol: (the library it was in before glibc moved it into libc,
    the glibc version that moved it)}."""
    if not _MOVED_HOME:
        for lib, byver in _MOVED.items():
            for names in byver.values():
                for n in names.split():
                    _MOVED_HOME[n] = (lib, (2, 32) if n in _MOVED_IN_2_32 else (2, 34))
    return _MOVED_HOME


_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
LINK_DIR = os.path.join(_ROOT, "build", "manylinux-link")
"""Where prepare_link() puts the stand-ins and the libstdc++ linker script."""


def _goarch(environ):
    a = environ.get("GOARCH")
    if a:
        return {"amd64": "x86_64", "arm64": "aarch64"}.get(a, a)
    import platform
    m = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def link_flags(link_dir=LINK_DIR, arch="x86_64"):
    """The CGO_LDFLAGS that link libgfxcuda.so for manylinux, given the
    directory prepare_link() filled (a string; commas and no quotes)."""
    flags = ["-L" + link_dir]
    if arch == "x86_64":
        flags += (["-Wl,--push-state", "-Wl,--no-as-needed"] + [os.path.join(link_dir, lib) for lib in sorted(_MOVED)]
                  + ["-Wl,--pop-state"])
    flags.append("-Wl,--exclude-libs,ALL")
    return " ".join(flags)


def prepare_link(link_dir=LINK_DIR, cc=None, environ=None):
    """Fills link_dir with what link_flags() names -- the libstdc++ linker
    script and, on x86_64, the libpthread/libdl/libresolv stand-ins, built
    with cc (CC, else gcc) -- and returns {"CGO_LDFLAGS": link_flags()}.
    RuntimeError naming what is missing (the C compiler, libstdc++.a) when
    it cannot."""
    environ = os.environ if environ is None else environ
    import shlex
    cc = shlex.split(cc or environ.get("CC") or "gcc")  # CC may carry flags, as cgo allows
    arch = _goarch(environ)
    os.makedirs(link_dir, exist_ok=True)

    def run(args, what):
        try:
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        except OSError as e:
            raise RuntimeError("%s: cannot run the C compiler %r (%s); install gcc or set CC" % (what, args[0], e))
        if p.returncode != 0:
            raise RuntimeError("%s failed (%s):\n%s" % (what, " ".join(args), (p.stderr or p.stdout).strip()))
        return p.stdout.strip()

    static = run(cc + ["-print-file-name=libstdc++.a"], "looking for libstdc++.a")
    if not os.path.isabs(static):
        raise RuntimeError("%s finds no libstdc++.a, which libgfxcuda.so links statically so that it needs no "
                           "libstdc++.so.6: install g++ (Debian: apt-get install g++, or libstdc++-12-dev)"
                           % " ".join(cc))
    _write(os.path.join(link_dir, "libstdc++.so"),
           "/* gfxcuda (manylinux.py): -lstdc++ links libstdc++ statically */\nINPUT(\"%s\")\n" % static)
    if arch == "x86_64":
        for lib, byver in sorted(_MOVED.items()):
            base = lib.split(".so")[0]
            script = "".join("GLIBC_%s { global: %s; %s};\n" % (v, "; ".join(s.split()), "local: *; " if i == 0 else "")
                             for i, (v, s) in enumerate(sorted(byver.items(), key=lambda kv: _vkey(kv[0]))))
            src = "".join("void %s(void) {}\n" % s for v in byver.values() for s in v.split())
            _write(os.path.join(link_dir, base + ".map"), script)
            _write(os.path.join(link_dir, base + ".c"), "/* a link-time stand-in: never loaded */\n" + src)
            run(cc + ["-shared", "-nostdlib", "-fPIC", "-fno-builtin", "-o", os.path.join(link_dir, lib),
                 os.path.join(link_dir, base + ".c"), "-Wl,-soname," + lib,
                 "-Wl,--version-script=" + os.path.join(link_dir, base + ".map")], "building the %s stand-in" % lib)
    return {"CGO_LDFLAGS": link_flags(link_dir, arch)}


def _write(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


# --- the command ------------------------------------------------------------------


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(
        prog="manylinux.py",
        description="Print the manylinux wheel tag of ELF shared libraries (the lowest policy each "
                    "satisfies), or check a wheel's files and tags. Exit status 1 with the reasons "
                    "when the policy is broken.")
    ap.add_argument("files", nargs="*", metavar="LIB_OR_WHEEL", help="a shared library (.so) or a wheel (.whl)")
    ap.add_argument("--arch", help="the wheel's architecture (default: each library's own)")
    ap.add_argument("--target", help="the highest policy acceptable (manylinux_2_28, manylinux2014, 2.28)")
    ap.add_argument("--why", action="store_true", help="also print what each library needs and which symbols pin its tag")
    ap.add_argument("--link-flags", nargs="?", const=LINK_DIR, metavar="DIR",
                    help="prepare DIR (default %s) and print the CGO_LDFLAGS that link libgfxcuda.so "
                         "for manylinux" % os.path.relpath(LINK_DIR))
    a = ap.parse_args(argv)
    if a.link_flags:
        try:
            print(prepare_link(os.path.abspath(a.link_flags))["CGO_LDFLAGS"])
        except RuntimeError as e:
            print("manylinux.py: %s" % e, file=sys.stderr)
            return 1
        return 0
    if not a.files:
        ap.error("give a shared library or a wheel (or --link-flags)")
    rc = 0
    for path in a.files:
        try:
            if path.endswith(".whl"):
                tag = check_wheel(path, target=a.target)
            else:
                tag = wheel_platform_tag(path, arch=a.arch, target=a.target)
        except PolicyError as e:
            print(str(e), file=sys.stderr)
            rc = 1
            continue
        except ValueError as e:
            print("manylinux.py: %s" % e, file=sys.stderr)
            return 2
        print(tag if len(a.files) == 1 else "%s  %s" % (tag, path))
        if a.why and not path.endswith(".whl"):
            for line in _why(read_elf(path)):
                print("  " + line)
    return rc


if __name__ == "__main__":
    sys.exit(main())
