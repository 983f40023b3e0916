#!/usr/bin/env bash
# Installs codetrial and everything it needs on a fresh Debian machine.
#   bash scripts/setup.sh          the tool itself (bubblewrap + the package + the embedded model)
#   bash scripts/setup.sh --test   also what the test suite needs (every language's toolchain)
#   bash scripts/setup.sh --languages all|go,rust,...   the polyglot toolchains (setup_languages.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
languages=""
while [ $# -gt 0 ]; do
  case "$1" in
    --test) want_test=1 ;;
    --languages) languages="${2:?--languages needs all or a list such as go,rust}"; shift ;;
    --languages=*) languages="${1#--languages=}" ;;
    *) echo "setup: unknown argument $1 (use --test, --languages all|go,rust,...)" >&2; exit 2 ;;
  esac
  shift
done
[ $want_test = 1 ] && [ -z "$languages" ] && languages=all  # the tests grade every language

apt_packages=()
command -v bwrap >/dev/null || apt_packages+=(bubblewrap)
# llama.cpp compiles from source
command -v g++ >/dev/null || apt_packages+=(g++)
command -v make >/dev/null || apt_packages+=(make)
# the HTML report test opens the report in a real headless browser
[ $want_test = 1 ] && ! command -v chromium >/dev/null && apt_packages+=(chromium)
# ... and screenshots it: the report's tooltips mark tests with emoji
[ $want_test = 1 ] && ! fc-list 2>/dev/null | grep -qi emoji && apt_packages+=(fonts-noto-color-emoji)
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
[ -n "$languages" ] && bash scripts/setup_languages.sh "$languages"

extras=""
[ $want_test = 1 ] && extras="[test]"
python3 -m pip install --disable-pip-version-check -q -e ".${extras}"

# The tests grade against the real JSON-Schema-Test-Suite, from the pinned jsonschema sdist:
# fetched here into pytest's cache (where tests/jsonschema looks for it), once per checkout, so
# that the test run does not wait on pip (up to a minute where pip must first fetch the sdist's
# build backend to read its metadata).
if [ $want_test = 1 ]; then
  CODETRIAL_CACHE="$PWD/.pytest_cache/d/codetrial-jsonschema-sdist" python3 -c \
    "from codetrial.suites.jsonschema.source import cached_sdist_suite; cached_sdist_suite()"
fi

# Prove the runtime generates, in a child process (a crash there cannot take setup down).
if ! python3 -m codetrial doctor --runtime-only; then
  echo "setup: the llama.cpp runtime does not generate on this machine (see above)" >&2
  exit 1
fi
echo "setup: done"
