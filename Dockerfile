# syntax=docker/dockerfile:1

# Build: a static binary (modernc.org/sqlite needs no cgo) with the content,
# pages, assets and migrations embedded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/faultline ./cmd/server

# Run: a small Debian with util-linux (prlimit, which the grader's sandbox
# uses to limit each grading child) and CA certificates, as a non-root user.
FROM debian:bookworm-slim
RUN apt-get update \
	&& apt-get install -y --no-install-recommends util-linux ca-certificates \
	&& rm -rf /var/lib/apt/lists/* \
	&& groupadd --system --gid 10001 faultline \
	&& useradd --system --uid 10001 --gid faultline --home-dir /data --shell /usr/sbin/nologin faultline \
	&& mkdir -p /data \
	&& chown faultline:faultline /data
COPY --from=build /out/faultline /usr/local/bin/faultline
USER faultline:faultline
WORKDIR /data
VOLUME /data
EXPOSE 8080
# SIGTERM (docker stop) lets in-flight requests finish.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/faultline"]
CMD ["serve", "-addr", "0.0.0.0:8080", "-db", "/data/faultline.db"]
