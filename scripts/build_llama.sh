#!/usr/bin/env bash
# Builds llama-cpp-python portably (x86-64 + AVX2; no -march=native, no AVX-512, no AMX) and
# installs it. pip's own wheel cache would hand back an earlier native build whatever CMAKE_ARGS
# say, so the portable wheel is built without that cache into a folder of our own, keyed by
# version and flags, and installed from there by path.
set -euo pipefail

version="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
flags="-DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_BACKEND_DL=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_CURL=OFF"
key="$(printf '%s %s' "$version" "$flags" | sha256sum | cut -c1-12)"
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/codetrial/wheels/llama-cpp-python-$version-$key"

installed_from() {  # the file URL pip recorded when the installed copy went in, if any
  python3 - <<'PY' 2>/dev/null || true
import json
from importlib.metadata import distribution
text = distribution("llama-cpp-python").read_text("direct_url.json")
print(json.loads(text)["url"] if text else "")
PY
}

wheel="$(ls "$wheels"/llama_cpp_python-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
  echo "setup: compiling llama.cpp $version portably (about 10 minutes on 2 cores)"
  mkdir -p "$wheels.tmp"
  CMAKE_ARGS="$flags" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    python3 -m pip wheel --disable-pip-version-check -q --no-cache-dir --no-deps \
      --no-binary llama-cpp-python -w "$wheels.tmp" "llama-cpp-python==$version"
  rm -rf "$wheels" && mv "$wheels.tmp" "$wheels"
  wheel="$(ls "$wheels"/llama_cpp_python-*.whl | head -n1)"
fi

if [ "$(installed_from)" = "file://$wheel" ]; then
  echo "setup: portable llama-cpp-python $version already installed"
else
  echo "setup: installing portable llama-cpp-python $version"
  python3 -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "$wheel"
  python3 -m pip install --disable-pip-version-check -q "llama-cpp-python==$version"  # its deps
fi
