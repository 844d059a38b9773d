import { service } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { CONTROLLER_NS, harness, linkSecret, NS } from "../test/support/fixtures.js";
import type { FederatedMembers } from "./federated-services.js";
import { FederatedServices } from "./federated-services.js";
import { LOCAL_DISCOVERY_ANNOTATION, REMOTE_DISCOVERY_ANNOTATION } from "./federation.js";

const fedService = (remotes: string | undefined, local?: string) =>
  service("web-fed", {
    namespace: NS,
    annotations: {
      ...(remotes === undefined ? {} : { [REMOTE_DISCOVERY_ANNOTATION]: remotes }),
      ...(local === undefined ? {} : { [LOCAL_DISCOVERY_ANNOTATION]: local }),
    },
  });

/** A local cluster with a federation watcher and the cluster store its Secrets feed. */
async function federation() {
  const h = harness();
  const federated = new FederatedServices(h.local, h.store);
  await h.local.start();
  h.watchSecrets();
  /** Members as text: linked ones with the kubeconfig of their cluster, then unlinked ones. */
  const text = (members: FederatedMembers | undefined) =>
    members === undefined
      ? "none"
      : [
          ...members.linked.map((m) => `${m.service}@[${h.describe(m.cluster)}]`),
          ...members.unlinked.map((m) => `${m.service}@${m.cluster} (unlinked)`),
          `local=${members.local ?? "-"}`,
        ].join(" ");
  /** Follows web-fed; returns what the follower heard, as text. */
  const follow = () => {
    const heard: string[] = [];
    federated.subscribe(NS, "web-fed", {
      changed: (members) => heard.push(`changed ${text(members)}`),
      ended: () => heard.push("ended"),
    });
    return heard;
  };
  return { ...h, federated, text, follow };
}

describe("FederatedServices", () => {
  it("resolves members against the clusters linked now", async () => {
    const f = await federation();
    f.local.apply(linkSecret("east", "10.2.0.1"));
    f.local.apply(fedService("web-svc@east,bad-entry,web-svc@west", "web-local"));
    expect(f.text(f.federated.get(NS, "web-fed"))).toBe(
      "web-svc@[east 10.2.0.1] web-svc@west (unlinked) local=web-local",
    );
    expect(f.federated.get(NS, "web-local")).toBeUndefined();
  });

  it("a member cluster linked later joins, and an unlinked one leaves, without ending", async () => {
    const f = await federation();
    f.local.apply(linkSecret("east", "10.2.0.1"));
    f.local.apply(fedService("web-svc@east,web-svc@west", "web-local"));
    const heard = f.follow();
    f.local.apply(linkSecret("west", "10.4.0.1"));
    f.local.delete("Secret", CONTROLLER_NS, "cluster-credentials-east");
    f.local.delete("Secret", CONTROLLER_NS, "cluster-credentials-west");
    expect(heard).toEqual([
      "changed web-svc@[east 10.2.0.1] web-svc@[west 10.4.0.1] local=web-local",
      "changed web-svc@[west 10.4.0.1] web-svc@east (unlinked) local=web-local",
      "changed web-svc@east (unlinked) web-svc@west (unlinked) local=web-local",
    ]);
  });

  it("a relinked member cluster is heard as its new cluster", async () => {
    const f = await federation();
    f.local.apply(linkSecret("east", "10.2.0.1"));
    f.local.apply(fedService("web-svc@east"));
    const heard = f.follow();
    f.local.apply(linkSecret("east", "10.2.0.2", "east-rotated"));
    // The old Secret's deletion changes no member: the new one links east now.
    f.local.delete("Secret", CONTROLLER_NS, "cluster-credentials-east");
    expect(heard).toEqual(["changed web-svc@[east 10.2.0.2] local=-"]);
  });

  it("clusters no member names, and federations nobody follows, are no news", async () => {
    const f = await federation();
    f.local.apply(fedService("web-svc@east"));
    f.local.apply(
      service("other-fed", {
        namespace: NS,
        annotations: { [REMOTE_DISCOVERY_ANNOTATION]: "web-svc@west" },
      }),
    );
    const heard = f.follow();
    f.local.apply(linkSecret("west", "10.4.0.1"));
    f.local.apply(linkSecret("north", "10.5.0.1"));
    expect(heard).toEqual([]);
    expect(f.text(f.federated.get(NS, "other-fed"))).toBe("web-svc@[west 10.4.0.1] local=-");
  });

  it("annotation changes are heard once; losing both annotations ends the federation", async () => {
    const f = await federation();
    f.local.apply(linkSecret("east", "10.2.0.1"));
    f.local.apply(fedService("web-svc@east", "web-local"));
    const heard = f.follow();
    f.local.apply(fedService("web-svc@east", "web-local"));
    f.local.apply(fedService(undefined, "web-local"));
    f.local.apply(service("web-fed", { namespace: NS }));
    // Followers were dropped with the federation: a later link is not news to them.
    f.local.apply(fedService("web-svc@west"));
    f.local.apply(linkSecret("west", "10.4.0.1"));
    expect(heard).toEqual(["changed local=web-local", "ended"]);
    expect(f.text(f.federated.get(NS, "web-fed"))).toBe("web-svc@[west 10.4.0.1] local=-");
  });

  it("stop() unregisters from the cluster and the store", async () => {
    const f = await federation();
    f.local.apply(fedService("web-svc@east"));
    const heard = f.follow();
    f.federated.stop();
    f.local.apply(linkSecret("east", "10.2.0.1"));
    f.local.delete("Service", NS, "web-fed");
    expect(heard).toEqual([]);
  });
});
