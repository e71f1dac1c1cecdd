#!/usr/bin/env bash
# certs/make-dev-certs.sh [out-dir] [charge-point-id...]: makes a development CA, a server
# certificate for localhost/127.0.0.1 and one client certificate per charge point id
# (CN = charge point id, as OCPP security profile 3 requires). For tests and local trials only:
# keys are written to out-dir (default certs/out, git-ignored), never committed.
set -euo pipefail
out="${1:-$(dirname "$0")/out}"
shift || true
ids=("$@")
[ ${#ids[@]} -gt 0 ] || ids=(CP-1)
mkdir -p "$out"
cd "$out"
days=825

if [ ! -f ca.key ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
    -days "$days" -subj "/CN=ocppgw dev CA" 2>/dev/null
fi
if [ ! -f server.key ]; then
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr \
    -subj "/CN=localhost" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem \
    -days "$days" -extfile server.ext 2>/dev/null
  rm -f server.csr server.ext
fi
for id in "${ids[@]}"; do
  [ -f "cp-$id.key" ] && continue
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "cp-$id.key" -out "cp-$id.csr" \
    -subj "/CN=$id" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > client.ext
  openssl x509 -req -in "cp-$id.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "cp-$id.pem" \
    -days "$days" -extfile client.ext 2>/dev/null
  rm -f "cp-$id.csr" client.ext
done
echo "certificates in $out: ca.pem server.pem/server.key cp-<id>.pem/cp-<id>.key"
