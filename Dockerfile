# The Toolshed service (api and worker share it) for hosts that reach a registry. The sandbox
# image is built separately from images/sandbox/Dockerfile.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/ensure-native.cjs scripts/
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
ENV NODE_ENV=production DATA_DIR=/var/lib/toolshed
ENTRYPOINT ["npx", "tsx", "src/main.ts"]
CMD ["serve"]
