// The proxy's view of a Get stream lives in @destination/proto; the testing entry keeps
// exporting it from here.
export { type AnnouncedEndpoint, EndpointView, sameAnnouncement } from "@destination/proto";
