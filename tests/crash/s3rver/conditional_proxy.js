// An HTTP proxy in front of s3rver that adds what s3rver lacks and AWS S3 documents: a PUT with
// `If-None-Match: *` of a key that exists answers 412 PreconditionFailed. Conditional PUTs of one
// key are serialised here, so two racing writers can never both create it. Everything else is
// forwarded unchanged (the Host header too: requests are signed for it).
// With REQUEST_LOG, every request is appended there as one line, "METHOD URL STATUS", once it
// is answered: the tests count a statement's requests from it.
// Usage: node conditional_proxy.js LISTEN_PORT S3RVER_PORT S3RVER_DATA_DIR [REQUEST_LOG]
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const listenPort = Number(process.argv[2]);
const upstreamPort = Number(process.argv[3]);
const dataDir = process.argv[4];
const requestLog = process.argv[5];
const queues = new Map();  // key -> the promise the next conditional PUT of it waits for

function forward(req, body, res) {
  return new Promise((resolve) => {
    // One connection per request (agent: false): a pooled socket that s3rver closed while idle
    // would fail the next request forwarded on it.
    const up = http.request({host: '127.0.0.1', port: upstreamPort, method: req.method,
                             path: req.url, headers: req.headers, agent: false}, (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
      upRes.on('end', resolve);
      upRes.on('error', () => { res.destroy(); resolve(); });
    });
    up.on('error', (e) => {
      console.error('upstream ' + req.method + ' ' + req.url + ': ' + e.message);
      // 503 makes the client retry; if the answer had begun, cut the connection instead.
      if (res.headersSent) res.destroy(); else { res.writeHead(503); res.end(); }
      resolve();
    });
    up.end(body);
  });
}

// Whether the object exists, from s3rver's own store on disk (a HEAD would need a signature
// of its own): <data>/<bucket>/<key>._S3rver_object, URLs path-style.
function exists(req) {
  const key = decodeURIComponent(req.url.split('?')[0]);
  return Promise.resolve(fs.existsSync(path.join(dataDir, key) + '._S3rver_object'));
}

// A proxy that dies mid-test turns every later request into "connection refused": say why
// instead, and keep serving.
process.on('uncaughtException', (e) => console.error('proxy: ' + (e.stack || e)));

http.createServer((req, res) => {
  req.on('error', () => res.destroy());
  res.on('error', () => {});
  if (requestLog) {
    res.on('finish', () => fs.appendFileSync(requestLog,
                                             req.method + ' ' + req.url + ' ' + res.statusCode + '\n'));
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.method !== 'PUT' || req.headers['if-none-match'] !== '*') {
      forward(req, body, res);
      return;
    }
    const key = req.url.split('?')[0];
    const before = queues.get(key) || Promise.resolve();
    const done = before.then(async () => {
      if (await exists(req)) {
        res.writeHead(412, {'Content-Type': 'application/xml'});
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code>' +
                '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
                '</Error>');
        return;
      }
      await forward(req, body, res);
    });
    queues.set(key, done);
    done.then(() => { if (queues.get(key) === done) queues.delete(key); });
  });
}).listen(listenPort, '127.0.0.1');
