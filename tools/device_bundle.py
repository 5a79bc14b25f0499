#!/usr/bin/env python3
"""Packs a CUDA build folder for a GPU machine that has none of our build
dependencies (the `device` tool's lent machines: a CUDA image without Debian's
-dev packages, no network, 64 MiB per call).

  tools/device_bundle.py BUILD_DIR OUT.tar.xz [--shared DIR] [--models a,b,...]

The archive holds, under its top folder `bundle/`:
  build/   BUILD_DIR's executables and ctest files (same relative paths)
  lib/     the shared-library closure of those executables, except glibc,
           libstdc++ and libgcc_s (the machine's own, newer ones serve)
  shared/  a subset of ../shared: testdata, MODELS_INVENTORY.md, the models,
           graphs and reference files named
Put bundle/lib on LD_LIBRARY_PATH; link BUILD_DIR's absolute path to
bundle/build and ../shared's to bundle/shared (ctest files hold absolute paths).

Libraries we never call into (OpenCV's GDAL/GDCM/gstreamer codecs, FFmpeg's
external codecs and network protocols, ...) would make the closure ~280 MB.
They are replaced by stubs: same SONAME, every dynamic symbol of the real
library defined under its version (functions return 0, objects are zeros), so
that BIND_NOW loading succeeds. Returning 0 rather than aborting: FFmpeg and
OpenCV call some of them while registering codecs and protocols
(gnutls_global_init, aom_codec_version, x265_api_get, ...) and take 0 as
"success" or "none". DEVICE_BUNDLE_TRACE=1 prints every stub call, to check
that a run reached nothing it needs. KEEP lists the libraries that stay real
(libgme too: FFmpeg's format probe dereferences the string it returns).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

# Provided by the GPU machine (same or newer ABI than ours).
SYSTEM = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux-x86-64|"
                    r"libstdc\+\+|libgcc_s|libcuda|libnvidia-.*)\.so")
# Real copies travel: what our code, OpenCV's core/image/video paths and FFmpeg's
# H.264/MPEG-4 decoding and x264 encoding reach, and libgme (see above).
KEEP = re.compile(r"^lib(opencv_.*|XNNPACK|pthreadpool|cpuinfo|flatbuffers|cudart|cublas.*|"
                  r"protobuf.*|absl_.*|jpeg|png16|webp|webpmux|webpdemux|sharpyuv|tiff|jbig|Lerc|"
                  r"deflate|zstd|lzma|z|bz2|openjp2|tbb.*|lapack|blas|openblas.*|gfortran|"
                  r"quadmath|gomp|gme|avcodec|avformat|avutil|swscale|swresample|x264|soxr|"
                  r"benchmark.*|gtest.*|gmock.*)\.so")


def run(*cmd):
  p = subprocess.run(cmd, capture_output=True, text=True)
  if p.returncode != 0:
    raise SystemExit("device_bundle: %s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
  return p.stdout


def needed(path):
  return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", path))


def locate(soname):
  for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64",
            "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib", "/lib"):
    p = os.path.join(d, soname)
    if os.path.exists(p):
      return os.path.realpath(p)
  out = run("ldconfig", "-p")
  m = re.search(r"^\s*" + re.escape(soname) + r" \(.*x86-64.*\) => (\S+)$", out, re.M)
  if m:
    return os.path.realpath(m.group(1))
  raise SystemExit("device_bundle: cannot find %s" % soname)


def is_elf(path):
  with open(path, "rb") as f:
    return f.read(4) == b"\x7fELF"


def dynamic_symbols(lib):
  """[(name, kind, size, version)] of the defined dynamic symbols; kind: func, object, tls."""
  syms = {}
  for line in run("readelf", "-W", "--dyn-syms", lib).splitlines():
    f = line.split()
    if len(f) < 8 or not f[0].endswith(":") or f[6] in ("UND", "ABS"):
      continue
    typ, bind, full = f[3], f[4], f[7]
    if bind not in ("GLOBAL", "WEAK") or typ in ("SECTION", "FILE", "NOTYPE"):
      continue
    name, _, version = full.partition("@")
    version = version.lstrip("@")
    if not name or name in ("_init", "_fini") or (name in syms and "@@" not in full):
      continue
    size = int(f[2], 0) if f[2].isdigit() or f[2].startswith("0x") else 0
    kind = {"FUNC": "func", "IFUNC": "func", "OBJECT": "object", "TLS": "tls"}.get(typ, "object")
    syms[name] = (kind, max(size, 8), version)
  return [(n,) + v for n, v in sorted(syms.items())]


def version_names(lib):
  """The version names the library defines (its verdef), except its own SONAME entry."""
  out = run("readelf", "-W", "-V", lib)
  sec = out.split("Version definition section")[1].split("Version needs section")[0] \
      if "Version definition section" in out else ""
  names = re.findall(r"Flags: (?!BASE)\S+\s+Index: \d+\s+Cnt: \d+\s+Name: (\S+)", sec)
  return names


STUB_HELPER = r"""
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Returns 0 to the stub's caller (the stubs tail-call this): "success" for
   init functions, NULL for getters. DEVICE_BUNDLE_TRACE=1 names each call. */
__attribute__((visibility("hidden"))) long sluice_stub_called(const char* name) {
  if (getenv("DEVICE_BUNDLE_TRACE")) {
    static const char a[] = "device bundle: stub called: ";
    ssize_t r = write(2, a, sizeof a - 1);
    r = write(2, name, strlen(name));
    r = write(2, " (" SONAME ")\n", sizeof(" (" SONAME ")\n") - 1);
    (void)r;
  }
  return 0;
}
"""


def make_stub(real, soname, out_dir, work):
  asm = ["\t.text"]
  data, tls, strings = [], [], []
  syms = dynamic_symbols(real)
  for i, (name, kind, size, _) in enumerate(syms):
    q = '"%s"' % name
    if kind == "func":
      asm += ["\t.globl %s" % q, "\t.type %s,@function" % q, "%s:" % q,
              "\tleaq .Ls%d(%%rip), %%rdi" % i, "\tjmp sluice_stub_called"]
      strings += [".Ls%d:" % i, '\t.asciz "%s"' % name]
    elif kind == "tls":
      tls += ["\t.globl %s" % q, "\t.type %s,@tls_object" % q, "\t.size %s,%d" % (q, size),
              "\t.p2align 4", "%s:" % q, "\t.zero %d" % size]
    else:
      data += ["\t.globl %s" % q, "\t.type %s,@object" % q, "\t.size %s,%d" % (q, size),
               "\t.p2align 4", "%s:" % q, "\t.zero %d" % size]
  src = "\n".join(asm + ["\t.section .rodata"] + strings + ["\t.bss"] + data +
                  (["\t.section .tbss,\"awT\",@nobits"] + tls if tls else []) +
                  ["\t.section .note.GNU-stack,\"\",@progbits", ""])
  s_path = os.path.join(work, soname + ".s")
  c_path = os.path.join(work, soname + ".c")
  with open(s_path, "w") as f:
    f.write(src)
  with open(c_path, "w") as f:
    f.write('#define SONAME "%s"\n' % soname + STUB_HELPER)
  # Same version names as the real library, so that loading prints no
  # "no version information available" and versioned references bind.
  args = []
  versions = version_names(real)
  if versions:
    by_version = {v: [] for v in versions}
    for name, _, _, v in syms:
      by_version.setdefault(v or versions[-1], []).append(name)
    v_path = os.path.join(work, soname + ".map")
    with open(v_path, "w") as f:
      for v, names in by_version.items():
        body = ("  global:\n" + "".join('    "%s";\n' % n for n in names)) if names else ""
        f.write("%s {\n%s};\n" % (v, body))
    args = ["-Wl,--version-script=" + v_path]
  run("gcc", "-shared", "-fPIC", "-O1", "-o", os.path.join(out_dir, soname),
      "-Wl,-soname," + soname, s_path, c_path, *args)


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("build")
  ap.add_argument("out")
  ap.add_argument("--shared", default=None)
  ap.add_argument("--models", default="", help="comma-separated model file names ('all': every one)")
  ap.add_argument("--no-testdata", action="store_true")
  ap.add_argument("--exes", default="", help="regex on executable names: only those travel")
  ap.add_argument("--python", default=None,
                  help="a build folder's python/ (the module built for the machine's Python)")
  ap.add_argument("--reference", action="store_true",
                  help="carry ../shared/reference/inputs and cpu_inference (Google's outputs)")
  ap.add_argument("--graphs", default="",
                  help="comma-separated paths under ../shared/mediapipe_graphs to carry")
  a = ap.parse_args()
  build = os.path.realpath(a.build)
  shared = os.path.realpath(a.shared or os.path.join(build, "..", "..", "shared"))
  work = tempfile.mkdtemp(prefix="device_bundle_")
  top = os.path.join(work, "bundle")
  libdir = os.path.join(top, "lib")
  os.makedirs(libdir)

  # Executables (stripped copies) and the ctest files that name them.
  exes = []
  for root, dirs, files in os.walk(build):
    dirs[:] = [d for d in dirs if d != "CMakeFiles" and not d.startswith("_deps")]
    for fn in files:
      p = os.path.join(root, fn)
      rel = os.path.relpath(p, build)
      dst = os.path.join(top, "build", rel)
      if fn in ("CTestTestfile.cmake", "CMakeCache.txt"):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(p, dst)
      elif (os.access(p, os.X_OK) and not os.path.islink(p) and is_elf(p) and ".so" not in fn and
            re.search(a.exes, fn)):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        run("strip", "--strip-unneeded", "-o", dst, p)
        exes.append(p)

  if a.python:
    dst = os.path.join(top, "build", "python")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(a.python, dst, ignore=shutil.ignore_patterns("CMakeFiles", "__pycache__"))
    for root, _, files in os.walk(dst):
      exes += [os.path.join(root, f) for f in files if f.endswith(".so")]

  # Library closure: KEEP libraries copied and followed, others stubbed.
  kept, stubbed, queue = {}, {}, []
  for e in exes:
    queue += needed(e)
  while queue:
    so = queue.pop()
    if so in kept or so in stubbed or SYSTEM.match(so):
      continue
    real = locate(so)
    if KEEP.match(so):
      kept[so] = real
      shutil.copy2(real, os.path.join(libdir, so))
      queue += needed(real)
    else:
      stubbed[so] = real
  for so, real in sorted(stubbed.items()):
    make_stub(real, so, libdir, work)

  if shared:
    sh = os.path.join(top, "shared")
    if not a.no_testdata:
      shutil.copytree(os.path.join(shared, "testdata"), os.path.join(sh, "testdata"))
    os.makedirs(os.path.join(sh, "research"), exist_ok=True)
    shutil.copy2(os.path.join(shared, "research", "MODELS_INVENTORY.md"), os.path.join(sh, "research"))
    if a.reference:
      for d in ("inputs", "cpu_inference"):
        shutil.copytree(os.path.join(shared, "reference", d), os.path.join(sh, "reference", d))
    for g in [g for g in a.graphs.split(",") if g]:
      dst = os.path.join(sh, "mediapipe_graphs", g)
      os.makedirs(os.path.dirname(dst), exist_ok=True)
      shutil.copy2(os.path.join(shared, "mediapipe_graphs", g), dst)
    os.makedirs(os.path.join(sh, "models"), exist_ok=True)
    names = sorted(os.listdir(os.path.join(shared, "models")))
    want = names if a.models == "all" else [m for m in a.models.split(",") if m]
    for m in want:
      if m not in names:
        raise SystemExit("device_bundle: no model %s in %s/models" % (m, shared))
      shutil.copy2(os.path.join(shared, "models", m), os.path.join(sh, "models"))

  with tarfile.open(a.out, "w:xz", preset=6) as t:
    t.add(top, arcname="bundle")
  print("device_bundle: %d executables, %d libraries, %d stubs -> %s (%.1f MiB)" %
        (len(exes), len(kept), len(stubbed), a.out, os.path.getsize(a.out) / 2**20))
  print("stubbed: " + " ".join(sorted(stubbed)))
  shutil.rmtree(work)


if __name__ == "__main__":
  sys.exit(main())
