#!/usr/bin/env bash
# Writes a Maven settings file for building offline against Debian's Maven repository:
# every repository is mirrored to file:///usr/share/maven-repo and artifacts are copied into a
# local repository of the caller's choice (so nothing writes into /usr/share/maven-repo).
# Debian's repository has no checksum files; the profile says so, which keeps a warning per
# artifact out of the log.
#
#   scripts/maven-offline-settings.sh SETTINGS_FILE LOCAL_REPOSITORY
#
# Used by `make demo` and by tests/plugins.rs.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 SETTINGS_FILE LOCAL_REPOSITORY" >&2
  exit 2
fi
settings=$1
local_repository=$2
debian=file:///usr/share/maven-repo
repository="<id>central</id><url>$debian</url><releases><checksumPolicy>ignore</checksumPolicy></releases>"

mkdir -p "$(dirname "$settings")"
cat > "$settings" <<XML
<settings>
  <localRepository>$local_repository</localRepository>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>$debian</url></mirror></mirrors>
  <profiles><profile><id>debian</id>
    <repositories><repository>$repository</repository></repositories>
    <pluginRepositories><pluginRepository>$repository</pluginRepository></pluginRepositories>
  </profile></profiles>
  <activeProfiles><activeProfile>debian</activeProfile></activeProfiles>
</settings>
XML
