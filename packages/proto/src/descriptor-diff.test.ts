// The comparator behind the conformance test must notice every kind of schema drift, and say
// where. These cases mutate a copy of our own descriptor, so they run without Go.
import { clone, create } from "@bufbuild/protobuf";
import {
  type DescriptorProto,
  DescriptorProto_ReservedRangeSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import {
  diffFileDescriptor,
  diffFileDescriptorSets,
} from "@destination/test-support/descriptor-diff";
import { describe, expect, it } from "vitest";
import { file_destination } from "./gen/destination_pb.js";
import { file_net } from "./gen/net_pb.js";

const base = file_destination.proto;

function mutated(edit: (f: FileDescriptorProto) => void): FileDescriptorProto {
  const copy = clone(FileDescriptorProtoSchema, base);
  edit(copy);
  return copy;
}

function message(f: FileDescriptorProto, ...path: string[]): DescriptorProto {
  let list = f.messageType;
  let found: DescriptorProto | undefined;
  for (const name of path) {
    found = list.find((m) => m.name === name);
    if (found === undefined) throw new Error(`no message ${path.join(".")}`);
    list = found.nestedType;
  }
  if (found === undefined) throw new Error("empty path");
  return found;
}

function field(m: DescriptorProto, name: string) {
  const f = m.field.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no field ${name}`);
  return f;
}

describe("diffFileDescriptor", () => {
  it("reports nothing for identical descriptors (comments are ignored)", () => {
    const withComments = mutated((f) => {
      f.sourceCodeInfo = { $typeName: "google.protobuf.SourceCodeInfo", location: [] };
    });
    expect(diffFileDescriptor(base, withComments)).toEqual([]);
  });

  it("reports a changed field number with its path", () => {
    const ours = mutated((f) => {
      field(message(f, "WeightedAddr"), "weight").number = 2;
    });
    expect(diffFileDescriptor(base, ours)).toEqual([
      "destination.proto > message WeightedAddr > field weight > number: upstream 3, ours 2",
    ]);
  });

  it("reports type, type_name and label changes", () => {
    const ours = mutated((f) => {
      const wa = message(f, "WeightedAddr");
      field(wa, "weight").type = FieldDescriptorProto_Type.UINT64;
      field(wa, "addr").typeName = ".io.linkerd.proxy.net.IPAddress";
      field(message(f, "AddrSet"), "addrs").label = FieldDescriptorProto_Label.OPTIONAL;
    });
    expect(diffFileDescriptor(base, ours)).toEqual([
      'destination.proto > message AddrSet > field addrs > label: upstream "LABEL_REPEATED", ours "LABEL_OPTIONAL"',
      'destination.proto > message WeightedAddr > field addr > typeName: upstream ".io.linkerd.proxy.net.TcpAddress", ours ".io.linkerd.proxy.net.IPAddress"',
      'destination.proto > message WeightedAddr > field weight > type: upstream "TYPE_UINT32", ours "TYPE_UINT64"',
    ]);
  });

  it("reports oneof membership and proto3_optional by name", () => {
    const ours = mutated((f) => {
      const tls = message(f, "TlsIdentity");
      const sn = field(tls, "server_name");
      sn.oneofIndex = 0;
      field(message(f, "NoEndpoints"), "exists").proto3Optional = true;
    });
    expect(diffFileDescriptor(base, ours)).toEqual([
      'destination.proto > message TlsIdentity > field server_name > oneof: upstream (unset), ours "strategy"',
      "destination.proto > message NoEndpoints > field exists > proto3Optional: upstream (unset), ours true",
    ]);
  });

  it("reports reserved ranges and names, and missing or extra fields", () => {
    const ours = mutated((f) => {
      const tls = message(f, "TlsIdentity");
      tls.reservedRange = [create(DescriptorProto_ReservedRangeSchema, { start: 2, end: 4 })];
      tls.reservedName = [];
      const wa = message(f, "WeightedAddr");
      wa.field = wa.field.filter((x) => x.name !== "resource_ref");
      const extra = clone(FileDescriptorProtoSchema, base).messageType[0]?.field[0];
      if (extra) wa.field.push({ ...extra, name: "bogus", number: 99 });
    });
    expect(diffFileDescriptor(base, ours)).toEqual([
      "destination.proto > message WeightedAddr > field resource_ref: missing in ours",
      "destination.proto > message WeightedAddr > field bogus: only in ours",
      "destination.proto > message TlsIdentity > reservedRange[0] > end: upstream 3, ours 4",
      'destination.proto > message TlsIdentity > reservedName: upstream ["k8s_pod_identity"], ours (unset)',
    ]);
  });

  it("reports map-entry, nested message, method and option changes", () => {
    const ours = mutated((f) => {
      const entry = message(f, "WeightedAddrSet", "MetricLabelsEntry");
      entry.options = undefined;
      const ka = message(f, "Http2ClientParams", "KeepAlive");
      field(ka, "while_idle").number = 4;
      const get = f.service[0]?.method[0];
      if (get) get.serverStreaming = false;
      if (f.options) f.options.goPackage = "example.com/x";
    });
    expect(diffFileDescriptor(base, ours)).toEqual([
      'destination.proto > message WeightedAddrSet > message MetricLabelsEntry > options: upstream {"mapEntry":true}, ours (unset)',
      "destination.proto > message Http2ClientParams > message KeepAlive > field while_idle > number: upstream 3, ours 4",
      "destination.proto > service Destination > method Get > serverStreaming: upstream true, ours false",
      'destination.proto > options > goPackage: upstream "github.com/linkerd/linkerd2-proxy-api/go/destination", ours "example.com/x"',
    ]);
  });

  it("reports enum value changes", () => {
    const ours = clone(FileDescriptorProtoSchema, file_net.proto);
    expect(diffFileDescriptor(file_net.proto, ours)).toEqual([]);
    const httpTypes = file_destination.dependencies.find((d) => d.name === "http_types");
    if (httpTypes === undefined) throw new Error("no http_types dependency");
    const changed = clone(FileDescriptorProtoSchema, httpTypes.proto);
    const registered = changed.messageType[0]?.enumType[0];
    const trace = registered?.value.find((v) => v.name === "TRACE");
    if (trace) trace.number = 9;
    expect(diffFileDescriptor(httpTypes.proto, changed)).toEqual([
      "http_types.proto > message HttpMethod > enum Registered > value TRACE > number: upstream 8, ours 9",
    ]);
  });

  it("reports declaration-order changes", () => {
    const ours = mutated((f) => {
      const wa = message(f, "WeightedAddr");
      wa.field.reverse();
    });
    const diffs = diffFileDescriptor(base, ours);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatch(
      /^destination\.proto > message WeightedAddr > field: declaration order/,
    );
  });

  it("compares sets of files by name", () => {
    expect(diffFileDescriptorSets([base, file_net.proto], [base])).toEqual([
      "net.proto: missing in ours",
    ]);
  });
});
