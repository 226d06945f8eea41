#!/usr/bin/env bash
# kotlin-example-classpath.sh JAR DIR: installs JAR (dev.mcpcore:mcpcore, with the pom beside it
# in dist/) into the local Maven repository, compiles examples/kotlin in a fresh Maven project at
# DIR that depends only on dev.mcpcore:mcpcore, and prints the classpath that runs it
# (DIR/target/classes, the installed jar, Kotlin's stdlib, JNA). Used by scripts/install-test.sh
# and scripts/install-test-cross.sh; Maven's output goes to stderr.
set -euo pipefail
jar=$1 kt=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
pom="${jar%.jar}.pom"
version=$(python3 "$root/scripts/version.py" get)
mvnq() { mvn -q -B -Dstyle.color=never "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2; }  # no colour resets
mvnq org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file -Dfile="$jar" -DpomFile="$pom"
mkdir -p "$kt/src/main/kotlin"
cp "$root"/examples/kotlin/src/mcpcore/examples/*.kt "$kt/src/main/kotlin/"
kotlin_version=$(sed -n 's:.*<kotlin.version>\(.*\)</kotlin.version>.*:\1:p' "$pom")
cat >"$kt/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>fresh-kotlin-app</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <kotlin.compiler.jvmTarget>17</kotlin.compiler.jvmTarget>
    <kotlin.compiler.daemon>false</kotlin.compiler.daemon>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.mcpcore</groupId>
      <artifactId>mcpcore</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <sourceDirectory>src/main/kotlin</sourceDirectory>
    <plugins>
      <plugin>
        <groupId>org.jetbrains.kotlin</groupId>
        <artifactId>kotlin-maven-plugin</artifactId>
        <version>$kotlin_version</version>
        <executions><execution><id>compile</id><goals><goal>compile</goal></goals></execution></executions>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.8.1</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
(cd "$kt" && mvnq compile dependency:build-classpath -Dmdep.outputFile=cp.txt)
echo "$kt/target/classes:$(cat "$kt/cp.txt")"
