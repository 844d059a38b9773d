// The proxy's view of a Get stream lives with the audit, which compares such views in the
// server; the testing entry keeps exporting it from here.
export { type AnnouncedEndpoint, EndpointView, sameAnnouncement } from "../audit/endpoint-view.js";
