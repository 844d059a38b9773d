import { describe, expect, it } from "vitest";
import { sharedPodIdentity, sharedProtocolHint } from "./shared-messages.js";

describe("sharedPodIdentity", () => {
  it("is one frozen message per service account, its own server name", () => {
    const web = sharedPodIdentity("cluster.local", "linkerd", "emojivoto", "web");
    expect(web.strategy).toEqual({
      case: "dnsLikeIdentity",
      value: {
        $typeName: "io.linkerd.proxy.destination.TlsIdentity.DnsLikeIdentity",
        name: "web.emojivoto.serviceaccount.identity.linkerd.cluster.local",
      },
    });
    expect(web.serverName).toBe(web.strategy.value);
    expect(sharedPodIdentity("cluster.local", "linkerd", "emojivoto", "web")).toBe(web);
    expect(Object.isFrozen(web) && Object.isFrozen(web.serverName)).toBe(true);
  });

  it("tells every part of the name apart", () => {
    const names = [
      sharedPodIdentity("cluster.local", "linkerd", "emojivoto", "web"),
      sharedPodIdentity("cluster.local", "linkerd", "emojivoto", "voting"),
      sharedPodIdentity("cluster.local", "linkerd", "books", "web"),
      sharedPodIdentity("cluster.local", "linkerd-2", "emojivoto", "web"),
      sharedPodIdentity("example.org", "linkerd", "emojivoto", "web"),
    ].map((id) => id.serverName?.name);
    expect(names).toEqual([
      "web.emojivoto.serviceaccount.identity.linkerd.cluster.local",
      "voting.emojivoto.serviceaccount.identity.linkerd.cluster.local",
      "web.books.serviceaccount.identity.linkerd.cluster.local",
      "web.emojivoto.serviceaccount.identity.linkerd-2.cluster.local",
      "web.emojivoto.serviceaccount.identity.linkerd.example.org",
    ]);
  });
});

describe("sharedProtocolHint", () => {
  it("names the protocol and the opaque-transport port, or none", () => {
    expect(sharedProtocolHint("none", undefined)).toEqual({
      $typeName: "io.linkerd.proxy.destination.ProtocolHint",
      protocol: { case: undefined },
    });
    const opaque = sharedProtocolHint("opaque", 4143);
    expect(opaque.protocol.case).toBe("opaque");
    expect(opaque.opaqueTransport?.inboundPort).toBe(4143);
    expect(sharedProtocolHint("h2", 4143).protocol.case).toBe("h2");
    expect(sharedProtocolHint("h2", undefined).opaqueTransport).toBeUndefined();
    // A workload may name port 0: the transport is still sent, with that port.
    expect(sharedProtocolHint("h2", 0).opaqueTransport?.inboundPort).toBe(0);
    expect(sharedProtocolHint("opaque", 4143)).toBe(opaque);
    expect(sharedProtocolHint("opaque", 4144)).not.toBe(opaque);
    expect(Object.isFrozen(opaque) && Object.isFrozen(opaque.opaqueTransport)).toBe(true);
  });
});
