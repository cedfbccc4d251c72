// An HTTP proxy in front of s3rver that adds what s3rver lacks and AWS S3 documents:
// - a PUT with `If-None-Match: *` of a key that exists answers 412 PreconditionFailed, and a
//   PUT with `If-Match: <ETag>` of a key whose object has another ETag (or none) too, as AWS S3
//   answers them. Conditional PUTs of one key are serialised here, so two racing writers can
//   never both create or both replace it;
// - a ListObjectsV2 with a delimiter returns as CommonPrefixes every prefix that has an object
//   anywhere below it (s3rver 3.7 returns only those with an object directly in them, so
//   `wh/db.db/` with tables under it would look empty). Answered from s3rver's store on disk,
//   in pages of max-keys (at most 1000) with continuation tokens, as S3 pages.
// Everything else is forwarded unchanged (the Host header too: requests are signed for it).
// With REQUEST_LOG, every request is appended there as one line, "METHOD URL STATUS", once it
// is answered: the tests count a statement's requests from it.
// With LOSE_ANSWER (a file), a fault for tests: while it exists and holds a string, the next
// conditional PUT whose key contains that string is stored, then answered 503 as if the
// answer were lost on the way (the file is then removed): the client retries a write that
// already happened.
// Usage: node conditional_proxy.js LISTEN_PORT S3RVER_PORT S3RVER_DATA_DIR [REQUEST_LOG]
//        [LOSE_ANSWER]
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');

const listenPort = Number(process.argv[2]);
const upstreamPort = Number(process.argv[3]);
const dataDir = process.argv[4];
const requestLog = process.argv[5];
const loseAnswer = process.argv[6];
const queues = new Map();  // key -> the promise the next conditional PUT of it waits for

// s3rver answers a PUT once it has read the request's body, not once the object's file is
// written (its file stream may not even have created the file), so the next request could miss
// the object (a conditional PUT would then succeed twice) or read part of it. A PUT of a whole
// object is answered here once that file holds all its bytes (at most 2 s later).
function written(req, body, status) {
  if (req.method !== 'PUT' || status !== 200 || req.url.includes('?') ||
      req.headers['x-amz-copy-source']) {
    return Promise.resolve();
  }
  const file = path.join(dataDir, decodeURIComponent(req.url)) + '._S3rver_object';
  const size = Number(req.headers['x-amz-decoded-content-length'] || body.length);
  const deadline = Date.now() + 2000;
  return new Promise((resolve) => {
    const poll = () => {
      let now = -1;
      try { now = fs.statSync(file).size; } catch (e) { /* not there yet */ }
      if (now === size || Date.now() > deadline) resolve(); else setTimeout(poll, 2);
    };
    poll();
  });
}

// Whether this conditional PUT's answer is to be lost (LOSE_ANSWER names its key).
function takeLostAnswer(key) {
  if (!loseAnswer) return false;
  let want = '';
  try { want = fs.readFileSync(loseAnswer, 'utf8').trim(); } catch (e) { return false; }
  if (!want || !key.includes(want)) return false;
  fs.unlinkSync(loseAnswer);
  return true;
}

// s3rver removes the directories a DELETE leaves empty (its store keeps a key's slashes as
// directories), and a PUT into such a directory creates it first and then opens the object's
// file: a DELETE pruning between the two fails the PUT inside s3rver (ENOENT, an unhandled
// error that ends s3rver). S3 has no directories, so no client can cause that there: here a
// DELETE (or a DeleteObjects POST) waits until no PUT is in flight, and PUTs wait for it.
let putsInFlight = 0;
let putsDrained = [];                 // resolvers waiting for putsInFlight to reach 0
let deletes = Promise.resolve();      // the chain of deletes, one at a time
function isDelete(req) {
  return req.method === 'DELETE' || (req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url));
}
function guarded(req, run) {
  if (req.method === 'PUT') {
    return deletes.then(() => {
      putsInFlight++;
      return run().finally(() => {
        if (--putsInFlight === 0) putsDrained.splice(0).forEach((r) => r());
      });
    });
  }
  if (!isDelete(req)) return run();
  const mine = deletes.then(() => new Promise((resolve) => {
    if (putsInFlight === 0) resolve(); else putsDrained.push(resolve);
  })).then(run);
  deletes = mine.catch(() => {});
  return mine;
}

function forward(req, body, res, lose = false) {
  return guarded(req, () => forwardNow(req, body, res, lose));
}

function forwardNow(req, body, res, lose = false) {
  return new Promise((resolve) => {
    // One connection per request (agent: false): a pooled socket that s3rver closed while idle
    // would fail the next request forwarded on it.
    const up = http.request({host: '127.0.0.1', port: upstreamPort, method: req.method,
                             path: req.url, headers: req.headers, agent: false}, (upRes) => {
      written(req, body, upRes.statusCode).then(() => {
        if (lose) {
          upRes.resume();
          res.writeHead(503);
          res.end();
          return;
        }
        res.writeHead(upRes.statusCode, upRes.headers);
        upRes.pipe(res);
      });
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

const kObject = '._S3rver_object';

// The ETag of the object the request names (s3rver's: the MD5 of its bytes, quoted), or null.
function currentEtag(req) {
  const key = decodeURIComponent(req.url.split('?')[0]);
  const file = path.join(dataDir, key) + kObject;
  if (!fs.existsSync(file)) return null;
  return '"' + require('crypto').createHash('md5').update(fs.readFileSync(file)).digest('hex') +
         '"';
}

function xmlEscape(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// Whether directory `dir` of the store holds an object at any depth.
function holdsObject(dir) {
  for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
    if (e.isFile() && e.name.endsWith(kObject)) return true;
    if (e.isDirectory() && holdsObject(path.join(dir, e.name))) return true;
  }
  return false;
}

// ListObjectsV2 with a delimiter ('/'), as S3 answers it: the objects directly under the prefix
// and the common prefixes of those deeper, in key order, at most max-keys (default 1000) of them
// a page; a truncated page names the last key it holds as NextContinuationToken (opaque to
// clients, as S3's). Path-style: /<bucket>?list-type=2&delimiter=/&prefix=
function listWithDelimiter(bucket, params, res) {
  const prefix = params.get('prefix') || '';
  const slash = prefix.lastIndexOf('/');
  const dirKey = prefix.slice(0, slash + 1);  // the "directory" part of the prefix
  const namePart = prefix.slice(slash + 1);   // what names in it must start with
  const dir = path.join(dataDir, bucket, dirKey);
  const maxKeys = Math.min(1000, Number(params.get('max-keys') || 1000));
  const token = params.get('continuation-token');
  const after = token ? Buffer.from(token, 'base64').toString('utf8')
                      : params.get('start-after') || '';
  const entries = [];  // {key, xml}
  if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) {
    for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
      if (e.isFile() && e.name.endsWith(kObject)) {
        const name = e.name.slice(0, -kObject.length);
        if (!name.startsWith(namePart)) continue;
        const st = fs.statSync(path.join(dir, e.name));
        entries.push({key: dirKey + name, xml: '<Contents><Key>' + xmlEscape(dirKey + name) +
                      '</Key><LastModified>' + st.mtime.toISOString() + '</LastModified><Size>' +
                      st.size + '</Size><StorageClass>STANDARD</StorageClass></Contents>'});
      } else if (e.isDirectory() && e.name.startsWith(namePart) &&
                 holdsObject(path.join(dir, e.name))) {
        entries.push({key: dirKey + e.name + '/', xml: '<CommonPrefixes><Prefix>' +
                      xmlEscape(dirKey + e.name + '/') + '</Prefix></CommonPrefixes>'});
      }
    }
  }
  const sorted = entries.filter((e) => e.key > after)
                        .sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const page = sorted.slice(0, maxKeys);
  const truncated = sorted.length > page.length;
  res.writeHead(200, {'Content-Type': 'application/xml'});
  res.end('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult ' +
          'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>' + xmlEscape(bucket) +
          '</Name><Prefix>' + xmlEscape(prefix) + '</Prefix><KeyCount>' + page.length +
          '</KeyCount><MaxKeys>' + maxKeys + '</MaxKeys><Delimiter>/</Delimiter><IsTruncated>' +
          truncated + '</IsTruncated>' +
          (token ? '<ContinuationToken>' + xmlEscape(token) + '</ContinuationToken>' : '') +
          (truncated ? '<NextContinuationToken>' +
                       Buffer.from(page[page.length - 1].key, 'utf8').toString('base64') +
                       '</NextContinuationToken>' : '') +
          page.map((e) => e.xml).join('') + '</ListBucketResult>');
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
    const [pathPart, query] = req.url.split('?');
    const params = new URLSearchParams(query || '');
    if (req.method === 'GET' && params.get('list-type') === '2' && params.get('delimiter') === '/' &&
        pathPart.split('/').filter((x) => x).length === 1) {
      listWithDelimiter(decodeURIComponent(pathPart.split('/').filter((x) => x)[0]), params, res);
      return;
    }
    const ifMatch = req.headers['if-match'];
    if (req.method !== 'PUT' || (req.headers['if-none-match'] !== '*' && !ifMatch)) {
      forward(req, body, res);
      return;
    }
    const key = req.url.split('?')[0];
    const before = queues.get(key) || Promise.resolve();
    const done = before.then(async () => {
      const unquote = (t) => (t || '').replace(/^"|"$/g, '');
      const failed = ifMatch ? unquote(currentEtag(req)) !== unquote(ifMatch) || !currentEtag(req)
                             : await exists(req);
      if (failed) {
        res.writeHead(412, {'Content-Type': 'application/xml'});
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code>' +
                '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
                '</Error>');
        return;
      }
      await forward(req, body, res, takeLostAnswer(key));
    });
    queues.set(key, done);
    done.then(() => { if (queues.get(key) === done) queues.delete(key); });
  });
}).listen(listenPort, '127.0.0.1');
