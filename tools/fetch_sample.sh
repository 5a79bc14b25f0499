#!/usr/bin/env bash
# Makes the sample clip of README's main command: samples/hand_640x480.mp4, a
# 3.5 s, 30 fps, 640x480 H.264 video of a real hand that slowly zooms, pans and
# turns (so hand tracking, not only detection, is exercised).
#
#   tools/fetch_sample.sh [--image PHOTO] [--output CLIP.mp4] [--seconds S] [--force]
#
# The photo: handSrc.jpg (640x480) of Debian's opencv-doc package (the OpenCV
# documentation's hand picture), taken from /usr/share/doc/opencv-doc when the
# package is installed, else from `apt-get download opencv-doc` (no root needed).
# When neither works (offline), it falls back to a hand photo of the shared test
# data, ../shared/testdata/hands/call_044768ad.jpg, and says so. (The mediapipe
# wheel ships no test images, so it is no fallback.) The photo is kept in
# samples/, so later runs work offline. Idempotent: an existing clip is kept
# unless --force. samples/ ignores itself (samples/.gitignore = "*").
# Needs ffmpeg (tools/setup.sh installs it). Prints the clip's path last.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
DIR="${SLUICE_SAMPLES_DIR:-$REPO/samples}"
OUT="$DIR/hand_640x480.mp4"
IMAGE=""
SECONDS_LEN=3.5
FORCE=0
DOC_JPG=usr/share/doc/opencv-doc/opencv4/html/handSrc.jpg
DOC_SHA=088532ab39ada21d9e332fa576d01d516bf4b8999c54a2c75665b35989f197fd

die() { echo "fetch_sample: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --image) IMAGE="${2:?--image needs a file}"; shift 2 ;;
    --output) OUT="${2:?--output needs a file}"; shift 2 ;;
    --seconds) SECONDS_LEN="${2:?--seconds needs a number}"; shift 2 ;;
    --force) FORCE=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$SECONDS_LEN" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--seconds wants a number, got '$SECONDS_LEN'"
[ -z "$IMAGE" ] || [ -s "$IMAGE" ] || die "--image $IMAGE: no such file"
command -v ffmpeg >/dev/null || die "ffmpeg not found: install it (tools/setup.sh)"

frames_of() {  # decoded frame count, or nothing when the file is not a video
  ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
    -of csv=p=0 "$1" 2>/dev/null || true
}

if [ "$FORCE" = 0 ] && [ -s "$OUT" ] && [ -n "$(frames_of "$OUT")" ]; then
  echo "fetch_sample: $OUT exists (--force to remake it)"; echo "$OUT"; exit 0
fi
mkdir -p "$DIR" "$(dirname "$OUT")"
[ -e "$DIR/.gitignore" ] || echo '*' > "$DIR/.gitignore"

# Finds the opencv-doc hand photo; prints its path, or nothing.
opencv_doc_photo() {
  local cached="$DIR/opencv-doc_handSrc.jpg"
  if [ -s "$cached" ]; then echo "$cached"; return; fi
  # (copies land under a temporary name first: tests may run this at once)
  if [ -s "/$DOC_JPG" ]; then
    cp "/$DOC_JPG" "$cached.$$" && mv -f "$cached.$$" "$cached"; echo "$cached"; return
  fi
  command -v apt-get >/dev/null || return 0
  local tmp; tmp="$(mktemp -d)"
  if (cd "$tmp" && timeout 120 apt-get download -q opencv-doc >/dev/null 2>&1) \
     && dpkg-deb --fsys-tarfile "$tmp"/opencv-doc_*.deb | tar -x -C "$tmp" "./$DOC_JPG" 2>/dev/null \
     && [ -s "$tmp/$DOC_JPG" ]; then
    cp "$tmp/$DOC_JPG" "$cached.$$" && mv -f "$cached.$$" "$cached"; echo "$cached"
  fi
  rm -rf "$tmp"
}

if [ -n "$IMAGE" ]; then
  echo "fetch_sample: photo $IMAGE (given)" >&2
else
  IMAGE="$(opencv_doc_photo)"
  if [ -n "$IMAGE" ]; then
    sha="$(sha256sum "$IMAGE" | cut -d' ' -f1)"
    echo "fetch_sample: photo handSrc.jpg of Debian's opencv-doc ($IMAGE)" >&2
    [ "$sha" = "$DOC_SHA" ] || echo "fetch_sample: note: its sha256 $sha is not the one this script was made with" >&2
  else
    IMAGE="$SHARED/testdata/hands/call_044768ad.jpg"
    [ -s "$IMAGE" ] || die "opencv-doc is unreachable (offline?) and the fallback $IMAGE is missing"
    echo "fetch_sample: opencv-doc unreachable; fallback photo $IMAGE (shared test data)" >&2
  fi
fi

# The photo, fitted into 640x480 and scaled by 0.70..0.86 over time, on the
# table's grey, panning +-48 px / +-24 px and turning +-0.14 rad.
T="$SECONDS_LEN"
FIT="min(640/iw\,480/ih)"
ZOOM="(0.78+0.08*sin(2*PI*t/$T))"
GREY=0xA8B4B2
FILTER="[0:v]scale=w='2*trunc(iw*$FIT*$ZOOM/2)':h='2*trunc(ih*$FIT*$ZOOM/2)':eval=frame[hand];"
FILTER+="[1:v][hand]overlay=x='(W-w)/2+48*sin(2*PI*t/$T)':y='(H-h)/2+24*sin(4*PI*t/$T)':shortest=1,"
FILTER+="rotate='0.14*sin(2*PI*t/$T)':c=$GREY,format=yuv420p"
TMP_OUT="$(dirname "$OUT")/.tmp_$$_$(basename "$OUT")"
trap 'rm -f "$TMP_OUT"' EXIT
ffmpeg -nostdin -hide_banner -loglevel error -y \
  -loop 1 -framerate 30 -t "$T" -i "$IMAGE" \
  -f lavfi -i "color=c=$GREY:s=640x480:r=30:d=$T" \
  -filter_complex "$FILTER" -r 30 -t "$T" \
  -c:v libx264 -preset medium -crf 18 -threads 2 -movflags +faststart -f mp4 "$TMP_OUT" \
  || die "ffmpeg failed to make the clip"
n="$(frames_of "$TMP_OUT")"
[ -n "$n" ] && [ "$n" -gt 0 ] || die "the clip ffmpeg wrote does not decode"
mv -f "$TMP_OUT" "$OUT"
echo "fetch_sample: wrote $OUT ($n frames, 640x480, 30 fps, H.264)" >&2
echo "$OUT"
