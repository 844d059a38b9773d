import { InvalidServiceError } from "@destination/core";
import type {
  FederatedMembers,
  FederationListener,
  LinkedMember,
  RemoteCluster,
} from "@destination/multicluster";
import type { Update } from "@destination/proto";
import { EndpointTranslator } from "@destination/translators";
import type { ServerLogger } from "../logging/server-logger.js";
import type { GetRoute } from "../request/request-routes.js";
import type { StreamSession } from "../streams/stream-session.js";
import type { DestinationContext } from "./destination-context.js";
import { type EndpointSource, subscribeSource, unsubscribeSource } from "./endpoint-source.js";

/**
 * One federated Get stream (README "Federated flow"): a source per remote member plus the local
 * one, each with its own queue capacity and diff state, all writing through the stream's one
 * queue.
 * Member changes add sources, or remove them with a `remove` of what they had sent. A member
 * whose cluster is linked later joins then; one whose cluster is unlinked leaves (a `remove`);
 * one whose cluster is relinked leaves and joins again on the new cluster, in that order, since
 * both clusters may serve the same addresses and the later `remove` would take them away.
 */
export class FederatedStream implements FederationListener {
  readonly #sources = new Map<
    string,
    { readonly source: EndpointSource; readonly cluster: RemoteCluster | undefined }
  >();
  /** Members waiting for their cluster, so that each is logged once until it joins. */
  readonly #waiting = new Set<string>();
  #closed = false;

  constructor(
    private readonly ctx: DestinationContext,
    private readonly session: StreamSession<Update>,
    private readonly route: GetRoute,
    private readonly nodeName: string,
    private readonly zone: string,
    private readonly logger: ServerLogger,
  ) {}

  changed(members: FederatedMembers): void {
    if (this.#closed) return;
    const wanted = new Map<
      string,
      { readonly cluster: RemoteCluster | undefined; readonly create: () => EndpointSource }
    >();
    for (const member of members.linked) {
      wanted.set(`remote ${member.service}@${member.cluster.name}`, {
        cluster: member.cluster,
        create: () => this.#remoteSource(member),
      });
    }
    const local = members.local;
    if (local !== undefined) {
      wanted.set(`local ${local}`, { cluster: undefined, create: () => this.#localSource(local) });
    }
    for (const [id, held] of [...this.#sources]) {
      const want = wanted.get(id);
      if (want !== undefined && want.cluster === held.cluster) continue;
      this.#sources.delete(id);
      unsubscribeSource(held.source, true);
    }
    const waiting = new Set(members.unlinked.map((m) => `${m.service}@${m.cluster}`));
    for (const member of waiting) {
      if (this.#waiting.has(member)) continue;
      this.logger.warn(`remote cluster of ${member} not linked; it joins when it is`, { member });
    }
    this.#waiting.clear();
    for (const member of waiting) this.#waiting.add(member);
    for (const [id, { cluster, create }] of wanted) {
      if (this.#sources.has(id)) continue;
      const source = create();
      try {
        subscribeSource(source);
        this.#sources.set(id, { source, cluster });
      } catch (err) {
        const reason = err instanceof InvalidServiceError ? "an ExternalName Service" : err;
        this.logger.error(`federated source ${id} skipped`, { error: reason });
      }
    }
  }

  ended(): void {
    this.session.end("federated service gone");
  }

  /** Releases every source without removes: the stream is over. */
  close(): void {
    this.#closed = true;
    for (const { source } of this.#sources.values()) unsubscribeSource(source);
    this.#sources.clear();
  }

  #remoteSource(member: LinkedMember): EndpointSource {
    const remote = member.cluster;
    const { namespace } = this.route.service;
    // Upstream formats the service ID here, which prints as `<ns>/<svc>`; the overflow label
    // keeps that prefix.
    const label = `${namespace}/${member.service}.${namespace}.svc.${remote.clusterDomain}:${this.route.port}`;
    const translation = this.ctx.remoteTranslations.forCluster(remote).forZone(this.zone);
    return {
      watcher: remote.watcher,
      service: { namespace, name: member.service },
      port: this.route.port,
      key: {
        hostname: this.route.instance,
        nodeName: this.nodeName,
        enableEndpointFiltering: false,
      },
      translator: new EndpointTranslator(translation, this.#sink(label), this.logger),
    };
  }

  #localSource(name: string): EndpointSource {
    return {
      watcher: this.ctx.endpoints,
      service: { namespace: this.route.service.namespace, name },
      port: this.route.port,
      key: {
        hostname: this.route.instance,
        nodeName: this.nodeName,
        enableEndpointFiltering: true,
      },
      translator: new EndpointTranslator(
        this.ctx.endpointTranslation.forZone(this.zone),
        this.#sink(name),
        this.logger,
      ),
    };
  }

  #sink(overflowLabel: string) {
    return this.session.sink.source(() =>
      this.ctx.overflowMetrics.endpoints.inc({ service: overflowLabel }),
    );
  }
}
