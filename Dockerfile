# syntax=docker/dockerfile:1

# Build: a static binary (modernc.org/sqlite needs no cgo) with the content,
# pages, assets and migrations embedded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/faultline ./cmd/server
# The toolchain the run stage keeps for the native referee, without what
# building never reads (Go's own tests and docs).
RUN rm -rf /usr/local/go/test /usr/local/go/doc /usr/local/go/api /usr/local/go/misc

# Run: a small Debian with util-linux (prlimit, which the grader's sandbox
# uses to limit each grading child), CA certificates, python3 (bookworm's
# 3.11, which grades Python answers) and the Go toolchain (the native
# referee's), as a non-root user.
FROM debian:bookworm-slim
RUN apt-get update \
	&& apt-get install -y --no-install-recommends util-linux ca-certificates python3 \
	&& rm -rf /var/lib/apt/lists/* \
	&& groupadd --system --gid 10001 faultline \
	&& useradd --system --uid 10001 --gid faultline --home-dir /data --shell /usr/sbin/nologin faultline \
	&& mkdir -p /data \
	&& chown faultline:faultline /data
# The Go toolchain: the native referee builds each graded submission with
# it to check the interpreter's verdict (README, "The native referee"). Its
# cache is filled here, so a container's first Grade builds as fast as any,
# and lives outside the /data volume, so every container starts with it.
COPY --from=build /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH \
	GOTOOLCHAIN=local \
	FAULTLINE_REFEREE_CACHE=/var/cache/faultline/referee
COPY --from=build /out/faultline /usr/local/bin/faultline
RUN /usr/local/bin/faultline referee-warm \
	&& chown -R faultline:faultline /var/cache/faultline
USER faultline:faultline
WORKDIR /data
VOLUME /data
EXPOSE 8080
# SIGTERM (docker stop) lets in-flight requests finish.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/faultline"]
CMD ["serve", "-addr", "0.0.0.0:8080", "-db", "/data/faultline.db"]
