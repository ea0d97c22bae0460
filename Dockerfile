# One image for web, worker and scheduler: the frontend bundle and the three binaries.

FROM node:20-bookworm-slim AS frontend
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

FROM alpine:3.20
RUN adduser -D -H -u 10001 infernal
COPY --from=binaries /out/ /usr/local/bin/
COPY --from=frontend /src/frontend/dist /srv/frontend
ENV STATIC_DIR=/srv/frontend HTTP_ADDR=:8080
USER infernal
EXPOSE 8080 9091
CMD ["web"]
