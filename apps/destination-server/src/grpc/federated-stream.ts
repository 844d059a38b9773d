import { InvalidServiceError } from "@destination/k8s-discovery";
import type { Update } from "@destination/proto";
import { EndpointTranslator } from "@destination/translators";
import type { ServerLogger } from "../logging/server-logger.js";
import type { FederationListener } from "../multicluster/federated-services.js";
import type { Federation, RemoteMember } from "../multicluster/federation.js";
import type { GetRoute } from "../request/request-routes.js";
import type { StreamSession } from "../streams/stream-session.js";
import type { DestinationContext } from "./destination-context.js";
import { type EndpointSource, subscribeSource, unsubscribeSource } from "./endpoint-source.js";

/**
 * One federated Get stream (api.md §3.9, §6): a source per remote member plus the local one,
 * each with its own queue capacity and diff state, all writing through the stream's one queue.
 * Member changes add sources, or remove them with a `remove` of what they had sent.
 */
export class FederatedStream implements FederationListener {
  readonly #sources = new Map<string, EndpointSource>();
  #closed = false;

  constructor(
    private readonly ctx: DestinationContext,
    private readonly session: StreamSession<Update>,
    private readonly route: GetRoute,
    private readonly nodeName: string,
    private readonly zone: string,
    private readonly logger: ServerLogger,
  ) {}

  changed(federation: Federation): void {
    if (this.#closed) return;
    const wanted = new Map<string, () => EndpointSource | undefined>();
    for (const member of federation.remotes) {
      wanted.set(`remote ${member.service}@${member.cluster}`, () => this.#remoteSource(member));
    }
    const local = federation.local;
    if (local !== undefined) wanted.set(`local ${local}`, () => this.#localSource(local));
    for (const [id, source] of [...this.#sources]) {
      if (wanted.has(id)) continue;
      this.#sources.delete(id);
      unsubscribeSource(source, true);
    }
    for (const [id, create] of wanted) {
      if (this.#sources.has(id)) continue;
      const source = create();
      if (source === undefined) continue;
      try {
        subscribeSource(source);
        this.#sources.set(id, source);
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
    for (const source of this.#sources.values()) unsubscribeSource(source);
    this.#sources.clear();
  }

  #remoteSource(member: RemoteMember): EndpointSource | undefined {
    const remote = this.ctx.clusterStore.get(member.cluster);
    if (remote === undefined) {
      this.logger.warn(`remote cluster ${member.cluster} not found; federated source skipped`, {
        member: `${member.service}@${member.cluster}`,
      });
      return undefined;
    }
    const { namespace } = this.route.service;
    // Upstream prints the service ID here, hence `<ns>/<svc>` in front (api.md §3.9).
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
