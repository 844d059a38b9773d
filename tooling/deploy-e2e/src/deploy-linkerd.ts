// The repository's deploy/linkerd: what the tests exercise, as an operator gets it.
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../deploy/linkerd/", import.meta.url));

export const DEPLOY_LINKERD = {
  root,
  /** The kustomize Component: the one declaration of the change. */
  component: `${root}destination-image`,
  /** The overlay for rendered manifests. */
  overlay: `${root}overlay`,
  /** The Helm 4 plugin folder. */
  helmPlugin: `${root}helm-plugin`,
  /** The executable Helm 3 takes as --post-renderer (and the plugin runs). */
  postRenderer: `${root}helm-plugin/destination-post-renderer`,
  /** The plugin's name in helm-plugin/plugin.yaml. */
  pluginName: "destination-server",
  /** The image the change sets unless told another. */
  defaultImage: "destination-server:0.2.0",
} as const;

/** Upstream's image of the destination controller, as the chart renders it. */
export const UPSTREAM_IMAGE = /^cr\.l5d\.io\/linkerd\/controller:/;
