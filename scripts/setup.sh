#!/usr/bin/env bash
# Installs codetrial and everything it needs on a fresh Debian machine.
#   bash scripts/setup.sh          the tool itself (bubblewrap + the package + the embedded model)
#   bash scripts/setup.sh --test   also what the test suite needs
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

apt_packages=()
command -v bwrap >/dev/null || apt_packages+=(bubblewrap)
# llama.cpp compiles from source
command -v g++ >/dev/null || apt_packages+=(g++)
command -v make >/dev/null || apt_packages+=(make)
# the HTML report test opens the report in a real headless browser
[ $want_test = 1 ] && ! command -v chromium >/dev/null && apt_packages+=(chromium)
if [ ${#apt_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${apt_packages[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null
  else
    echo "setup: warning: please install ${apt_packages[*]} (the sandbox falls back to a weaker mode)"
  fi
fi

bash scripts/build_llama.sh

extras=""
[ $want_test = 1 ] && extras="[test]"
python3 -m pip install --disable-pip-version-check -q -e ".${extras}"

# Prove the runtime generates, in a child process (a crash there cannot take setup down).
if ! python3 -m codetrial doctor --runtime-only; then
  echo "setup: the llama.cpp runtime does not generate on this machine (see above)" >&2
  exit 1
fi
echo "setup: done"
