// Help texts. Each command's text is printed for `dst COMMAND --help` and after a usage error.

export type CommandName = "get" | "profile" | "endpoints" | "diagnose" | "audit";

const FLAGS = `Flags:
  --addr HOST:PORT        destination server gRPC address (default localhost:8086)
  --admin-addr HOST:PORT  diagnose: the server's admin HTTP address (default 127.0.0.1:9996)
  --context-token TOKEN   send this context token verbatim
  --ns NAMESPACE          build the token {"ns":…,"nodeName":…,"pod":…} from these,
  --node NODE             as the proxy injector does for a pod (not with --context-token)
  --pod POD
  -o, --output FORMAT     table (default), json (one proto-JSON message per line, each
                          address also as "address": "ip:port"), yaml (one document per
                          message)
  --timeout DURATION      deadline to connect and for the first message, e.g. 5s, 500ms
                          (default 5s)
  -h, --help              show this help`;

const EXIT_CODES = `Exit codes:
  0    success, including a stream the server ended with OK (a note is printed)
  1    any other gRPC error
  2    usage error
  3    server unreachable (for diagnose, its admin address), or connection lost
  4    NOT_FOUND (for example an unknown Service on get or diagnose)
  5    INVALID_ARGUMENT (the server's message is printed)
  6    profile --once: no profile arrived within --timeout
  130  interrupted (Ctrl-C); the stream is cancelled`;

export const rootUsage = `dst: what the Linkerd destination service tells proxies, over its gRPC API.

Usage:
  dst get AUTHORITY [flags]           endpoints of a service, live (Get)
  dst profile AUTHORITY [flags]       profile of a service or ip:port, live (GetProfile)
  dst endpoints AUTHORITY... [flags]  endpoints of several services, once
  dst diagnose AUTHORITY [flags]      why each address of a service is or is not served
  dst audit AUTHORITY... | --all      the server's answers against what the cluster implies
  dst help [COMMAND]                  help for a command
  dst --version

${FLAGS}
  -V, --version           print the version

${EXIT_CODES}

Examples:
  dst get web-svc.emojivoto.svc.cluster.local:80
  dst profile --once -o json web-svc.emojivoto.svc.cluster.local:80
  dst endpoints --addr 127.0.0.1:8086 web-svc.emojivoto.svc.cluster.local:80 \\
      emoji-svc.emojivoto.svc.cluster.local:8080
`;

export const commandUsage: Readonly<Record<CommandName, string>> = {
  get: `dst get: the endpoints of a service, as a proxy sees them (Get), redrawn on every change.

Usage:
  dst get AUTHORITY [--once] [flags]

AUTHORITY is <service>.<namespace>.svc.<cluster domain>[:port] (port 80 when omitted).
The table shows IP, PORT, POD, OWNER, IDENTITY, PROTOCOL HINT and ZONE. Rows marked + were
added, ~ changed and - removed by the last update; removed rows are shown once. With a
terminal the table is redrawn in place, otherwise each update prints a new table after a blank
line. If nothing arrives within --timeout (a service without endpoints is silent), an empty
table is shown and the watch goes on.

  --once                  print the first endpoint set and exit; an empty set after --timeout

${FLAGS}

${EXIT_CODES}

Examples:
  dst get web-svc.emojivoto.svc.cluster.local:80
  dst get --once -o json voting-svc.emojivoto.svc.cluster.local:8080
  dst get --ns emojivoto --node node-a --pod web-1 web-svc.emojivoto.svc.cluster.local:80
`,
  profile: `dst profile: the profile of a service or of one ip:port (GetProfile), updated live.

Usage:
  dst profile AUTHORITY [--once] [flags]

AUTHORITY is a service name (<svc>.<ns>.svc.<cluster domain>[:port]), a cluster IP, or a pod
ip:port. Shown: fully qualified name, opaque protocol, routes (condition, name, retryable,
timeout, response classes), retry budget, traffic split (dst overrides as percentages),
endpoint (for ip:port), parent and profile references.

  --once                  print the first profile and exit (exit 6 if none within --timeout)

${FLAGS}

${EXIT_CODES}

Examples:
  dst profile web-svc.emojivoto.svc.cluster.local:80
  dst profile --once 10.244.0.12:8080
  dst profile --once -o yaml --ns emojivoto emoji-svc.emojivoto.svc.cluster.local:8080
`,
  endpoints: `dst endpoints: the endpoints of one or more services, once.

Usage:
  dst endpoints AUTHORITY... [flags]

Every authority is queried at the same time; each answer is its first Get message. A service
that stays silent for --timeout has no endpoints and contributes no rows. Errors are printed per
authority; the exit code is that of the first failing authority in argument order.
With -o json, each line is {"authority": …, "update": <Update as proto JSON>} ("update" is
absent for a silent service); -o yaml writes the same objects as documents.

${FLAGS}

${EXIT_CODES}

Examples:
  dst endpoints web-svc.emojivoto.svc.cluster.local:80 emoji-svc.emojivoto.svc.cluster.local:8080
  dst endpoints --timeout 1s -o json voting-svc.emojivoto.svc.cluster.local:8080
`,
  diagnose: `dst diagnose: what the server knows about the Service behind an authority, and why
each of its addresses is or is not handed to proxies.

Usage:
  dst diagnose AUTHORITY [--admin-addr HOST:PORT] [flags]

AUTHORITY is <service>.<namespace>.svc.<cluster domain>[:port] (port 80 when omitted). dst reads
/debug/endpoints from the server's admin address and shows the Service (type, cluster IPs,
ports and target ports, Get subscribers), then every EndpointSlice of it: each address with its
pod, phase, node, owner, zone and zone hints, and whether it is served on the asked port or why
not (not ready, pod missing, externalworkload missing, no matching port, ...). Notes say how
each subscriber's view is filtered further (zone hints, internalTrafficPolicy). With -o json or
yaml, the endpoint's JSON is printed as it came.

${FLAGS}

${EXIT_CODES}

Examples:
  dst diagnose web-svc.emojivoto.svc.cluster.local:80
  dst diagnose --admin-addr 10.0.0.5:9996 -o json emoji-svc.emojivoto.svc.cluster.local:8080
`,
  audit: `dst audit: does the server answer Get as the cluster (or a folder of manifests) says it
must? What to run when a proxy misbehaves.

Usage:
  dst audit AUTHORITY... [--all] [--kubeconfig PATH [--context NAME] | --manifests DIR]
      [--settle DURATION] [flags] [-- SERVER-FLAGS... | --server-args-from NAMESPACE/DEPLOYMENT]

dst starts a reference destination server in-process on the source (the cluster of --kubeconfig,
resolved as the server resolves it when the flag is left out, or --manifests DIR), waits for its
caches, and asks it and the server at --addr the same Get and GetProfile, with the same context
token. The first Get answer of each is compared endpoint by endpoint as a proxy holds it:
address, weight, identity, protocol hint and opaque transport, authority override, metric labels
(zone included). An endpoint is missing (the source implies it, the server lacks it), extra, or
changed (with the fields that differ). The first profiles are compared field by field (opaque
protocol, endpoint, routes, retry budget, dst overrides, refs). A silent stream (no endpoints or
no profile within --timeout) holds nothing; an error agrees only with the same kind of error.

Everything after -- is the audited server's command line, as in its Deployment (upstream's
"destination -cluster-domain=... ..." too), read by the server's own flag parser: the reference
answers with the same cluster domain, identity trust domain, transport mode, H2 upgrade,
EndpointSlices, IPv6, default opaque ports, meshed HTTP/2 parameters and zone weights. Flags
that shape no answer (addresses, kubeconfig, log level, ...) are accepted and ignored; a flag
the server refuses exits 2 with its message. --server-args-from reads the same command line
from the args of the Deployment's "destination" container in the cluster. Without either, the
server's defaults.

An authority that diverges is asked again on both sides after --settle (the server and a fresh
list can be a few events apart); only a divergence that persists counts. RECHECK says "gone"
(the DETAILS show the first check) or "persists".

  --all                   every port of every Service in the source
  --manifests DIR         the expected answers come from this folder of manifests
  --kubeconfig PATH       ... or from this kubeconfig's cluster (default: KUBECONFIG,
                          ~/.kube/config, then in-cluster)
  --context NAME          the kubeconfig context (default: its current context)
  --settle DURATION       wait this long before rechecking a divergence, e.g. 2s, 500ms
                          (default 2s; 0: no recheck)
  --server-args-from NAMESPACE/DEPLOYMENT
                          the server flags are the args of that Deployment's destination
                          container (a cluster source; not with -- SERVER-FLAGS)
  -o, --output FORMAT     table (default): one row per authority (status, missing, extra,
                          changed, profile, recheck, details); json: one object per
                          authority and line

  --addr HOST:PORT        destination server gRPC address (default localhost:8086)
  --context-token TOKEN   send this context token verbatim
  --ns NAMESPACE          build the token {"ns":…,"nodeName":…,"pod":…} from these,
  --node NODE             as the proxy injector does for a pod (not with --context-token)
  --pod POD
  --timeout DURATION      deadline to connect and for each first answer (default 5s)
  -h, --help              show this help

Exit codes:
  0    every authority agrees
  1    some authority diverges (after the recheck), or the source could not be read
  2    usage error, or a server flag after -- the server refuses
  3    server unreachable
  130  interrupted (Ctrl-C); the streams are cancelled

Examples:
  dst audit --manifests examples/manifests web-svc.emojivoto.svc.cluster.local:80
  dst audit --all --context prod -o json
  dst audit --kubeconfig ~/.kube/config --all -- -cluster-domain=example.org \
      -enable-h2-upgrade=false
  dst audit --all --server-args-from linkerd/linkerd-destination
`,
};
