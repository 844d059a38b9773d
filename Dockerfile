# syntax=docker/dockerfile:1
# The destination-server image that deploy/linkerd swaps into Linkerd's own `destination`
# container (and that deploy/deployment.yaml runs on its own):
#
#   docker build -t destination-server:0.2.0 .
#
# The build stage installs the whole workspace and builds the server with the workspace packages
# it depends on. `pnpm deploy` then copies the server, those packages' built files and the
# production dependencies into /out, so the runtime stage holds no sources, no dev tools and no
# pnpm. See deploy/README.md.

# One node version for both stages, so the runtime runs what the build tested: the shipped line,
# the one tooling/node-runtime runs the workspace on.
ARG NODE_VERSION=26.12.1

FROM node:${NODE_VERSION}-bookworm AS build
RUN npm i -g pnpm@12.4.2
# The image's node is the shipped line already: scripts use it, not tooling/node-runtime's copy.
ENV TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 DESTINATION_NODE_LINE=system
WORKDIR /src
# Downloads depend on the lockfile alone, so this layer is reused while only sources change.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm turbo run build --filter=@destination/server... --output-logs=errors-only
RUN pnpm deploy --filter=@destination/server --prod /out

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
# Linkerd's chart runs the container with runAsUser 2103 and no runAsGroup: the runtime then takes
# the group from the image's /etc/passwd, which without this entry has no uid 2103, and the
# process would run in group 0 (root). With it, the group is 2103 under the chart as under
# deploy/deployment.yaml.
RUN groupadd --gid 2103 destination \
  && useradd --uid 2103 --gid 2103 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin destination
COPY --from=build /out /app
# Numeric, so Kubernetes can check runAsNonRoot; the uid Linkerd's chart and deploy/deployment.yaml
# run as. The files stay root-owned: the server only reads them, and writes nothing anywhere, so
# the chart's readOnlyRootFilesystem holds (deploy/linkerd/README.md, "Security context").
USER 2103:2103
EXPOSE 8086 9996
# The binary adds its own node flags (apps/destination-server README, "Node flags") by
# re-executing itself in place; DESTINATION_NODE_FLAGS replaces them.
ENTRYPOINT ["node", "/app/bin/destination-server.js"]
