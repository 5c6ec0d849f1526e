// A minimal Chrome DevTools Protocol client over a WebSocket, with node's
// built-in modules only (node 20 has no WebSocket client): enough to drive
// a headless chromium in a test.
import crypto from 'node:crypto';
import http from 'node:http';

// RFC 6455 framing: client frames are masked; text frames, no extensions.
function encodeFrame(text) {
  const payload = Buffer.from(text);
  const mask = crypto.randomBytes(4);
  let header;
  if (payload.length < 126) {
    header = Buffer.from([0x81, 0x80 | payload.length]);
  } else if (payload.length < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x81; header[1] = 0x80 | 126; header.writeUInt16BE(payload.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81; header[1] = 0x80 | 127; header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

export class Cdp {
  static connect(wsUrl) {
    const url = new URL(wsUrl);
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: url.hostname, port: url.port, path: url.pathname,
        headers: {
          Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'),
        },
      });
      req.on('upgrade', (res, socket) => resolve(new Cdp(socket)));
      req.on('error', reject);
      req.end();
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    socket.on('data', (d) => this.onData(d));
    socket.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('DevTools connection closed'));
    });
  }

  onData(data) {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const opcode = this.buffer[0] & 0x0f;
      const fin = (this.buffer[0] & 0x80) !== 0;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2); offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2)); offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const payload = this.buffer.subarray(offset, offset + length);
      this.buffer = this.buffer.subarray(offset + length);
      if (opcode === 0x8) { this.socket.end(); return; }
      if (opcode === 0x9 || opcode === 0xa) continue;  // ping/pong
      this.fragments.push(Buffer.from(payload));
      if (!fin) continue;
      const message = JSON.parse(Buffer.concat(this.fragments).toString());
      this.fragments = [];
      this.dispatch(message);
    }
  }

  dispatch(message) {
    if (message.id !== undefined && this.pending.has(message.id)) {
      const { resolve, reject, method } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result);
      return;
    }
    for (const l of this.listeners) l(message);
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.write(encodeFrame(JSON.stringify(message)));
    });
  }

  close() { this.socket.destroy(); }
}

// A page target: evaluate expressions in it, take screenshots.
export class Page {
  static async open(cdp, url) {
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(cdp, sessionId);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Page.navigate', { url });
    return page;
  }

  constructor(cdp, sessionId) { this.cdp = cdp; this.sessionId = sessionId; }

  send(method, params = {}) { return this.cdp.send(method, params, this.sessionId); }

  async evaluate(expression) {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }

  async screenshot() {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
    return Buffer.from(data, 'base64');
  }
}
