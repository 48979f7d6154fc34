#!/usr/bin/env bash
# The release check of issue #33, without credentials (docs/release.md):
#   1. the release profile resolves (signing and publishing plugins);
#   2. two clean builds of the reactor give byte-identical jars (main, sources, javadoc; reproducible builds);
#   3. the second build deploys to a file repository, target/staging-repo, which must hold exactly the published
#      modules, each with its pom, jar, sources and javadoc jars (the BOM: its pom);
#   4. a tiny application (release/tiny-app: the SDK and the LangChain4j adapter through flux2-bom) is built against
#      only that repository and Maven Central, with a local repository of its own under target/release-check, and
#      generates one image from a synthetic bundle.
# Nothing is written into ~/.m2: install is skipped, the builds' local repository is chained to ~/.m2 read-only, and
# the tiny app has a local repository of its own.
#
# usage: release/check.sh [--central mirror|network]
#   mirror (default): ~/.m2/repository stands in for Maven Central, read-only, as a file: mirror of "central"
#     (releases only: Central's policy, so no snapshot in it is ever used); no network.
#   network: Maven Central itself (downloads every dependency of the tiny app afresh).
# Takes two builds without tests (about 4-8 minutes on 2 cores) and ~1 minute for the tiny app.
set -euo pipefail

central=mirror
while [[ $# -gt 0 ]]; do
  case "$1" in
    --central) central="$2"; shift 2 ;;
    *) echo "usage: release/check.sh [--central mirror|network]" >&2; exit 2 ;;
  esac
done
[[ "$central" == mirror || "$central" == network ]] || { echo "--central: mirror or network" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' flux2-bom/pom.xml | head -n 1)"
published=(flux2-core flux2-tokenizer flux2-onnx flux2-hub flux2-server flux2-langchain4j flux2-spring-ai
  flux2-spring-ai-starter flux2-spark)
first="$(mktemp -d "${TMPDIR:-/tmp}/flux2-release-check.XXXXXX")"
trap 'rm -rf "$first"' EXIT
# The builds read ~/.m2 but never write to it: a local repository of their own (outside target/, which the builds
# clean) chained to ~/.m2 as a read-only tail (Maven 3.9). Even a deploy writes there (the remote metadata it merges).
m2="${MAVEN_REPO:-$HOME/.m2/repository}"
mvn=("$root/mvnw" -B -q -DskipTests -Dspotless.check.skip=true "-Dmaven.repo.local=$first/m2"
  "-Dmaven.repo.local.tail=$m2")

echo "== 1. the release profile resolves"
"${mvn[@]}" -Prelease -Dgpg.skip -N -f flux2-bom/pom.xml verify

echo "== 2. two clean builds, compared"
"${mvn[@]}" -o clean package
while IFS= read -r jar; do
  mkdir -p "$first/jars/$(dirname "$jar")"
  cp "$jar" "$first/jars/$jar"
done < <(find . -path ./release -prune -o -path '*/target/*.jar' -print | sed 's:^\./::' | grep -v '/target/.*/')
staging="$root/target/staging-repo"
# clean apart: in one run the root's clean would delete what flux2-bom, built before it, had deployed.
"${mvn[@]}" -o clean
"${mvn[@]}" deploy -Dmaven.install.skip=true "-DaltDeploymentRepository=staging::file://$staging"
different=0
compared=0
while IFS= read -r jar; do
  compared=$((compared + 1))
  if ! cmp -s "$first/jars/$jar" "$jar"; then
    echo "not reproducible: $jar" >&2
    different=$((different + 1))
  fi
done < <(cd "$first/jars" && find . -name '*.jar' | sed 's:^\./::' | sort)
[[ "$compared" -gt 0 ]] || { echo "no jars were compared" >&2; exit 1; }
[[ "$different" -eq 0 ]] || { echo "$different of $compared jars differ between two builds" >&2; exit 1; }
echo "   $compared jars byte-identical in two builds"

echo "== 3. the staging repository holds the published modules"
dir="$staging/dev/flux2"
expected="$(printf '%s\n' flux2-bom flux2-parent "${published[@]}" | sort)"
found="$(ls "$dir" | sort)"
if [[ "$found" != "$expected" ]]; then
  echo "staged modules differ; expected:" $expected "; found:" $found >&2
  exit 1
fi
for module in "${published[@]}"; do
  for suffix in .pom .jar -sources.jar -javadoc.jar; do
    ls "$dir/$module/$version/"*"$suffix" >/dev/null 2>&1 || { echo "$module: no *$suffix staged" >&2; exit 1; }
  done
done
echo "   $(find "$dir" -name '*.jar' -o -name '*.pom' | grep -c .) files for $(echo "$found" | wc -l) artifacts in $staging"

echo "== 4. a tiny application against only the staging repository and Maven Central ($central)"
work="$root/target/release-check"
rm -rf "$work"
mkdir -p "$work"
"${mvn[@]}" -o -pl flux2-testkit dependency:build-classpath "-Dmdep.outputFile=$work/testkit.cp"
java -cp "flux2-testkit/target/flux2-testkit-$version.jar:$(cat "$work/testkit.cp")" \
  dev.flux2.testkit.SyntheticBundleMain "$work/bundle" >/dev/null
mirror=""
if [[ "$central" == mirror ]]; then
  mirror="<mirrors><mirror><id>central-stand-in</id><mirrorOf>central</mirrorOf>
      <url>file://$m2</url></mirror></mirrors>"
fi
cat > "$work/settings.xml" <<SETTINGS
<settings>
  <localRepository>$work/m2</localRepository>
  $mirror
  <profiles>
    <profile>
      <id>staging</id>
      <repositories>
        <repository>
          <id>staging</id>
          <url>file://$staging</url>
          <releases><enabled>true</enabled></releases>
          <snapshots><enabled>true</enabled></snapshots>
        </repository>
      </repositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>staging</activeProfile></activeProfiles>
</settings>
SETTINGS
cp -r release/tiny-app "$work/tiny-app"
(cd "$work/tiny-app" && "$root/mvnw" -B -q -s "$work/settings.xml" "-Dflux2.version=$version" -DskipTests \
  package dependency:build-classpath "-Dmdep.outputFile=$work/tiny-app.cp")
# Every flux2 artifact the tiny app resolved came from the staging repository.
from_elsewhere="$(grep -rL '^[^#].*>staging=' --include=_remote.repositories "$work/m2/dev/flux2" || true)"
[[ -z "$from_elsewhere" ]] || { echo "flux2 artifacts not from staging: $from_elsewhere" >&2; exit 1; }
java -cp "$work/tiny-app/target/classes:$(cat "$work/tiny-app.cp")" app.TinyApp "$work/bundle" "$work/tiny-app.png"
echo "release check passed: $version, $compared jars reproducible, staged in $staging, tiny app ran"
