# syntax=docker/dockerfile:1
# PageProxy container image: build with the official Swift image, run on a slim Ubuntu with no Swift toolchain.
# scripts/container-build.sh runs the same build steps on a machine without Docker (CI does).

FROM swift:6.3-noble AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
# The Swift runtime and Foundation are linked statically, so the runtime image needs only libc and libstdc++,
# plus OpenSSL and the CA certificates, which PageProxy loads at run time for https:// upstreams.
RUN swift build -c release --static-swift-stdlib --product PageProxy \
 && install -D -m 0755 "$(swift build -c release --show-bin-path)/PageProxy" /out/usr/local/bin/PageProxy
COPY config.json /out/etc/pageproxy/config.json

FROM ubuntu:24.04
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libssl3t64 libstdc++6 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/cache/pageproxy --create-home pageproxy
COPY --from=build /out/ /
USER pageproxy
# Listen on every interface inside the container; keep the cache in the user's own directory.
ENV PAGEPROXY_ADDRESS=0.0.0.0 \
    PAGEPROXY_PORT=8080 \
    PAGEPROXY_CACHE_DIR=/var/cache/pageproxy
EXPOSE 8080
# The image has no curl: the binary checks its own /healthz, at PAGEPROXY_PORT (so `-e PAGEPROXY_PORT=9000` moves both).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/PageProxy", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/PageProxy"]
# Mount your own config over /etc/pageproxy/config.json, or pass another path.
CMD ["serve", "--config", "/etc/pageproxy/config.json"]
