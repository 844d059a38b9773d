/**
 * What a GetProfile stream asks the workload watcher about: an `ip:port`, or a StatefulSet-style
 * instance `<hostname>.<service>.<namespace>.svc…` whose IP is looked up in the service's
 * EndpointSlices (or Endpoints), in which case `ip` is ignored.
 */
export interface WorkloadTarget {
  readonly ip: string;
  readonly port: number;
  readonly hostname?: string;
  readonly service?: { namespace: string; name: string };
}
