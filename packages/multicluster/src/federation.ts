import type { Service } from "@destination/core";

export const LOCAL_DISCOVERY_ANNOTATION = "multicluster.linkerd.io/local-discovery";
export const REMOTE_DISCOVERY_ANNOTATION = "multicluster.linkerd.io/remote-discovery";
export const REMOTE_DISCOVERY_LABEL = "multicluster.linkerd.io/remote-discovery";
export const REMOTE_SERVICE_LABEL = "multicluster.linkerd.io/remote-service";

/** One `<svc>@<cluster>` entry of the remote-discovery annotation. */
export interface RemoteMember {
  readonly service: string;
  readonly cluster: string;
}

/**
 * What a federated Service unites; every member service is in the federated Service's own
 * namespace (see README "Federated Services: what a follower hears").
 */
export interface Federation {
  readonly remotes: readonly RemoteMember[];
  /** The local service of `local-discovery`, when set. */
  readonly local: string | undefined;
}

/**
 * Either annotation's key makes a Service federated, whatever its value (even ""). The server
 * checks this before the remote-discovery label.
 */
export function isFederated(service: Service): boolean {
  const annotations = service.metadata.annotations ?? {};
  return (
    annotations[LOCAL_DISCOVERY_ANNOTATION] !== undefined ||
    annotations[REMOTE_DISCOVERY_ANNOTATION] !== undefined
  );
}

/**
 * The members a federated Service names. Remote entries that do not split into exactly two
 * parts on `@` are passed to `onBadEntry` and skipped.
 */
export function readFederation(service: Service, onBadEntry: (entry: string) => void): Federation {
  const annotations = service.metadata.annotations ?? {};
  const remotes: RemoteMember[] = [];
  const remoteText = annotations[REMOTE_DISCOVERY_ANNOTATION];
  if (remoteText !== undefined && remoteText !== "") {
    for (const entry of remoteText.split(",")) {
      const parts = entry.split("@");
      if (parts.length !== 2) {
        onBadEntry(entry);
        continue;
      }
      remotes.push({ service: parts[0] ?? "", cluster: parts[1] ?? "" });
    }
  }
  const local = annotations[LOCAL_DISCOVERY_ANNOTATION];
  return { remotes, local: local === undefined || local === "" ? undefined : local };
}
