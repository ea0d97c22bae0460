# One image for web, worker and scheduler: the frontend bundle and the three binaries.

# Node 22 (LTS) builds the bundle; only its output goes into the image.
FROM node:22-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM golang:1.26-bookworm AS binaries
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY pkg ./pkg
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ ./cmd/web ./cmd/worker ./cmd/scheduler

# A supported Alpine (3.23, maintained until November 2027): its busybox
# wget serves the web tier's health check; worker and scheduler check
# themselves (-healthcheck).
FROM alpine:3.23
# /var/lib/infernal is the web tier's own writable directory, where it
# writes a generated admin password (owner-only); compose keeps it in a volume.
RUN adduser -D -H -u 10001 infernal && install -d -o infernal -g infernal -m 0700 /var/lib/infernal
COPY --from=binaries /out/ /usr/local/bin/
COPY --from=frontend /src/frontend/dist /srv/frontend
ENV STATIC_DIR=/srv/frontend HTTP_ADDR=:8080 ADMIN_PASSWORD_FILE=/var/lib/infernal/admin-password
USER infernal
WORKDIR /var/lib/infernal
EXPOSE 8080 9091
CMD ["web"]
