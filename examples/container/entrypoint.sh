#!/bin/sh
# The container's entry point (docs/spec/sidecar.md §12.1): the visor is the container's main process and the
# node binary lives on the volume with the data, because an image cannot replace its own binary (cosmovisor
# #12920). The first start copies the image's binary into the volume's cosmovisor/genesis; every start then
# execs `xupgrade visor run`, which reconciles what the volume holds (docs/spec/sidecar.md §5.1) and gets the
# container's SIGTERM itself.
set -eu
: "${DAEMON_HOME:?DAEMON_HOME must be set: the node's --home, on the volume}"
: "${DAEMON_NAME:?DAEMON_NAME must be set: the node binary's file name}"
# The node binary the image ships, used once, for genesis.
: "${XUPGRADE_GENESIS_BINARY:=/usr/local/bin/$DAEMON_NAME}"
# How to run xupgrade (the image installs it globally).
: "${XUPGRADE:=xupgrade}"

if [ ! -e "$DAEMON_HOME/cosmovisor/genesis/bin/$DAEMON_NAME" ]; then
  $XUPGRADE visor init "$XUPGRADE_GENESIS_BINARY"
fi
exec $XUPGRADE visor run "$@"
