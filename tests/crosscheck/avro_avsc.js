// Cross-check of Tributary's Avro codec against avsc, an independent implementation.
// Reads tributary-<codec>.avro from the directory in argv[2] and compares every record with
// expectedRecord(i); then writes avsc-<codec>.avro with the same records for the C++ side.
// Run by avro_avsc.sh; needs NODE_PATH with avsc and snappyjs, and the zstd command.
'use strict';
const assert = require('assert');
const childProcess = require('child_process');
const path = require('path');
const zlib = require('zlib');
const avro = require('avsc');
const snappy = require('snappyjs');

const dir = process.argv[2];
const kRecords = 1000;
const kCodecs = ['null', 'deflate', 'snappy', 'zstandard'];

function crc32BigEndian(buf) {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(zlib.crc32(buf) >>> 0);
  return out;
}

// Passing codecs replaces avsc's defaults, so null is listed too.
const decoders = {
  null: (buf, cb) => cb(null, buf),
  deflate: (buf, cb) => zlib.inflateRaw(buf, cb),
  snappy: (buf, cb) => {
    try {
      const data = Buffer.from(snappy.uncompress(buf.subarray(0, buf.length - 4)));
      if (!crc32BigEndian(data).equals(buf.subarray(buf.length - 4))) {
        return cb(new Error('snappy checksum mismatch'));
      }
      cb(null, data);
    } catch (e) {
      cb(e);
    }
  },
  zstandard: (buf, cb) => {
    try {
      cb(null, childProcess.execFileSync('zstd', ['-d', '-c', '-q'], {input: buf}));
    } catch (e) {
      cb(e);
    }
  },
};
const encoders = {
  null: (buf, cb) => cb(null, buf),
  deflate: (buf, cb) => zlib.deflateRaw(buf, cb),
  snappy: (buf, cb) => cb(null, Buffer.concat([Buffer.from(snappy.compress(buf)), crc32BigEndian(buf)])),
  zstandard: (buf, cb) => cb(null, childProcess.execFileSync('zstd', ['-c', '-q'], {input: buf})),
};

// Mirrors CrossCheckDatum() in src/format/avro_test.cc.
function expectedRecord(i) {
  const tags = [];
  for (let j = 0; j < i % 4; ++j) tags.push('t' + j);
  const attrs = {};
  for (let j = 0; j < i % 3; ++j) attrs['k' + j] = j * i;
  return {
    id: i - 500,
    big: (i - 500) * 1000000007,
    name: 'name-' + i + '\u00e9',
    score: i * 0.25,
    ratio: i * 0.5,
    flag: i % 3 === 0,
    raw: Buffer.from([i % 256, (i * 7) % 256]),
    opt: i % 2 === 1 ? null : i * 3,
    tags,
    attrs,
    color: ['RED', 'GREEN', 'BLUE'][i % 3],
    nested: {a: i, b: i % 5 !== 0 ? 'b' + i : null},
    ts: 1754048761150 + i,
  };
}

// Plain JSON values, so records built here and records avsc decodes compare equal.
const plain = (v) => JSON.parse(JSON.stringify(v));

function readFile(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let header = null;
    avro.createFileDecoder(file, {codecs: decoders})
        .on('metadata', (type, codec) => { header = {type, codec}; })
        .on('data', (r) => records.push(r))
        .on('error', reject)
        .on('end', () => resolve({header, records}));
  });
}

function writeFile(file, type, codec) {
  return new Promise((resolve, reject) => {
    const encoder = avro.createFileEncoder(file, type, {codec, codecs: encoders, blockSize: 4096});
    encoder.on('error', reject);
    // The file stream closes after the encoder has flushed.
    encoder.on('finish', () => setTimeout(resolve, 100));
    for (let i = 0; i < kRecords; ++i) encoder.write(expectedRecord(i));
    encoder.end();
  });
}

async function main() {
  for (const codec of kCodecs) {
    const file = path.join(dir, `tributary-${codec}.avro`);
    const {header, records} = await readFile(file);
    assert.strictEqual(header.codec, codec, file);
    assert.strictEqual(records.length, kRecords, file);
    for (let i = 0; i < kRecords; ++i) {
      assert.deepStrictEqual(plain(records[i]), plain(expectedRecord(i)), `${file} record ${i}`);
    }
    console.log(`avsc read ${file}: ${records.length} records OK`);
    await writeFile(path.join(dir, `avsc-${codec}.avro`), header.type, codec);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
