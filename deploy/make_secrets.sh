#!/usr/bin/env bash
# Writes the Secrets deploy/kubernetes's pods read, as YAML on stdout: tw-tls (a new CA, and
# one certificate + key for every task, valid for *.tw.<namespace>.svc.cluster.local, used to
# serve and as the client certificate between tasks) and tw-token (a new cluster token).
# Clients outside the cluster need ca.crt, a certificate that CA signed, and the token:
# pass --out DIR to keep the files there (keep them secret).
#   deploy/make_secrets.sh [--namespace NS (default: default)] [--service NAME (default: tw)] [--out DIR] | kubectl apply -f -
set -euo pipefail
namespace=default service=tw out=""
while (($#)); do
  case "$1" in
    --namespace|--service|--out)
      [ $# -ge 2 ] || { echo "error: $1 needs a value" >&2; exit 2; }
      declare "${1#--}=$2"; shift 2 ;;
    *) sed -n 's/^#   //p' "$0" >&2; exit 2 ;;
  esac
done
[[ "$namespace" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || { echo "error: --namespace '$namespace' is not a DNS label" >&2; exit 2; }
[[ "$service" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || { echo "error: --service '$service' is not a DNS label" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
openssl req -x509 $key -keyout "$dir/ca.key" -out "$dir/ca.crt" -days 365 -subj "/CN=tensorweave-ca" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:*.%s.%s.svc.cluster.local\n' \
  "$service" "$namespace" > "$dir/task.ext"
openssl req $key -keyout "$dir/tls.key" -out "$dir/task.csr" -subj "/CN=tensorweave-task" 2>/dev/null
openssl x509 -req -in "$dir/task.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 365 \
  -extfile "$dir/task.ext" -out "$dir/tls.crt" 2>/dev/null
openssl rand -hex 32 > "$dir/token"
kubectl create secret generic tw-tls --namespace="$namespace" --dry-run=client -o yaml \
  --from-file=tls.crt="$dir/tls.crt" --from-file=tls.key="$dir/tls.key" --from-file=ca.crt="$dir/ca.crt"
echo "---"
kubectl create secret generic tw-token --namespace="$namespace" --dry-run=client -o yaml --from-file=token="$dir/token"
if [ -n "$out" ]; then
  mkdir -p "$out" && chmod 700 "$out"
  cp "$dir"/{ca.crt,ca.key,tls.crt,tls.key,token} "$out"/
  echo "make_secrets.sh: the CA, the task certificate and the token are in $out" >&2
fi
