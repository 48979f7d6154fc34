#!/usr/bin/env bash
# Runs the flux2 batch job (dev.flux2.spark.Flux2BatchJob) in Spark local mode on this machine, from the built
# module, with the job's own arguments plus --parallelism:
#
#   flux2-spark/run-local.sh --model DIR --input URI --output URI [--concurrency N] [--fail-fast] [--parallelism N]
#
#   --parallelism N   Spark task slots: --master local[N] (default 2)
#
# Build the module first: ./mvnw -B -q -pl flux2-spark -am package -DskipTests
# (target/flux2-spark.jar, and target/spark-classpath.txt: the Spark jars in the local Maven repository).
# Environment: FLUX2_SPARK_JAVA_OPTS (JVM options, e.g. -Xmx8g), FLUX2_SPARK_LOG_LEVEL (Spark's log level,
# default WARN), JAVA (the java binary, default java). Exit codes are the job's (0 ok, 2 usage or input, 3 model,
# 4 a row failed under --fail-fast, 1 other failures).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/flux2-spark.jar"
classpath_file="$here/target/spark-classpath.txt"
if [[ ! -f "$jar" || ! -f "$classpath_file" ]]; then
  echo "run-local.sh: $jar is not built; run: ./mvnw -B -q -pl flux2-spark -am package -DskipTests" >&2
  exit 2
fi

parallelism=2
job_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --parallelism)
      if [[ $# -lt 2 ]]; then
        echo "run-local.sh: --parallelism needs a value" >&2
        exit 2
      fi
      parallelism="$2"
      shift 2
      ;;
    --parallelism=*)
      parallelism="${1#*=}"
      shift
      ;;
    *)
      job_args+=("$1")
      shift
      ;;
  esac
done
if ! [[ "$parallelism" =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "run-local.sh: --parallelism must be a positive integer, found '$parallelism'" >&2
  exit 2
fi

# What spark-submit adds on Java 17+: Spark 4.2's org.apache.spark.launcher.JavaModuleOptions.
java_module_options=(
  -XX:+IgnoreUnrecognizedVMOptions
  --add-modules=jdk.incubator.vector
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
  -Dio.netty.allocator.type=pooled
  -Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE
  --sun-misc-unsafe-memory-access=allow
  --enable-native-access=ALL-UNNAMED
)

# Local mode talks to itself only.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
# shellcheck disable=SC2086 # FLUX2_SPARK_JAVA_OPTS holds several options on purpose
exec "${JAVA:-java}" "${java_module_options[@]}" ${FLUX2_SPARK_JAVA_OPTS:-} \
  -Dspark.master="local[$parallelism]" \
  -Dspark.app.name=flux2-batch \
  -Dspark.ui.enabled=false \
  -Dspark.log.level="${FLUX2_SPARK_LOG_LEVEL:-WARN}" \
  -Dspark.sql.debug.maxToStringFields=64 \
  -cp "$jar:$(cat "$classpath_file")" \
  dev.flux2.spark.Flux2BatchJob "${job_args[@]}"
