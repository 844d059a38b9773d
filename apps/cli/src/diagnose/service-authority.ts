// `<service>.<namespace>.svc.<cluster domain>[:port]` → the Service it names. `dst diagnose`
// reads the server's admin endpoint by namespace and name, so it resolves the authority itself.

export interface ServiceAuthority {
  readonly namespace: string;
  readonly name: string;
  /** The port asked for; 80 when the authority has none, as for Get. */
  readonly port: number;
}

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The Service an authority names, or a sentence saying why it names none. */
export function parseServiceAuthority(authority: string): ServiceAuthority | string {
  const problem = `${JSON.stringify(authority)} is not <service>.<namespace>.svc.<cluster domain>[:port]`;
  const match = /^([^:]+)(?::(\d+))?$/.exec(authority);
  if (match === null) return problem;
  const [, host = "", portText] = match;
  const port = portText === undefined ? 80 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return `${JSON.stringify(authority)}: the port must be 1-65535`;
  }
  const [name, namespace, svc, ...domain] = host.replace(/\.$/, "").split(".");
  if (
    name === undefined ||
    namespace === undefined ||
    svc !== "svc" ||
    domain.length === 0 ||
    !LABEL.test(name) ||
    !LABEL.test(namespace)
  ) {
    return problem;
  }
  return { namespace, name, port };
}
