/**
 * A deterministic generator of ClickBench's `hits` table (issue #19 Done-when 2): the 105
 * columns and PostgreSQL types of ClickBench's postgresql/create.sql (github.com/ClickHouse/
 * ClickBench at faa7e582cf7f2be943d11e5340fdc8a274671f2f), with skewed, web-analytics-like
 * distributions instead of the published (Yandex.Metrica) rows, at any row count. The
 * differential test and the bench use it:
 *
 *   const h = hitsTable(30_000);
 *   const table = await db.createTable('hits', HITS_COLUMNS);
 *   const sink = table.sink();
 *   for (const b of h.batches()) await sink.write(b);
 *   await sink.commit();
 *
 * The shape, chosen so that each of the 43 queries (fixtures/clickbench/queries.sql) selects
 * rows at 1M rows:
 *   - CounterID: Zipf over counters (s = 1.1), the largest one being 62 (about a fifth of the
 *     rows); each counter is a site whose pages (URL) are Zipf-distributed, its home page first.
 *   - UserID: Zipf over a pool of rows/8 users, 435090932899640449 among the heavy ones; a
 *     user's RegionID, ClientIP, OS, UserAgent, screen and phone stay the same across hits.
 *   - EventTime: in July 2013, with a daily rhythm; EventDate is its date.
 *   - Referer: '' for a third of hits (TraficSourceID 0); else a search engine (yandex.ru above
 *     all, with a SearchPhrase; TraficSourceID 2), a page of the same site (TraficSourceID -1)
 *     or another site (1, or 6 for a recommendation). SearchPhrase is '' on most hits.
 *   - URLHash and RefererHash: a 64-bit hash of the string, except that counter 62's home page as a
 *     URL hashes to 2868770270353813622 and its second page as a Referer to
 *     3594120000172545465 (the constants of queries 41 and 42).
 *   - AdvEngineID 0 on 97% of hits; MobilePhoneModel '' for desktop users (about 90%);
 *     IsRefresh 10%, DontCountHits 5%, IsLink 8%, IsDownload 1%; a few hits repeat the
 *     previous hit's WatchID and ClientIP (a double-counted page view).
 *   - Titles, search phrases and page paths mix ASCII and Cyrillic; some URLs and titles
 *     contain "google" / "Google" (queries 21–24).
 *
 * Values are in paxd's stored representation (src/types/column.ts): int8 as bigint,
 * timestamps as bigint microseconds since 1970-01-01, dates as days since 1970-01-01.
 */
import { readFileSync } from 'node:fs';
import { columnOf } from '../../src/types/builder.js';
import type { Batch, Value } from '../../src/types/column.js';
import { parseTypeName } from '../../src/types/parse-type.js';
import type { PgType } from '../../src/types/type.js';
import type { ColumnSpec } from '../../src/table/database.js';
import { Rng } from './random.js';

/** [name, type] of the 105 columns in create.sql's order (names folded to lower case, as PostgreSQL stores them). */
const SCHEMA: readonly (readonly [string, string])[] = [
  ['watchid', 'int8'], ['javaenable', 'int2'], ['title', 'text'], ['goodevent', 'int2'], ['eventtime', 'timestamp'],
  ['eventdate', 'date'], ['counterid', 'int4'], ['clientip', 'int4'], ['regionid', 'int4'], ['userid', 'int8'],
  ['counterclass', 'int2'], ['os', 'int2'], ['useragent', 'int2'], ['url', 'text'], ['referer', 'text'],
  ['isrefresh', 'int2'], ['referercategoryid', 'int2'], ['refererregionid', 'int4'], ['urlcategoryid', 'int2'], ['urlregionid', 'int4'],
  ['resolutionwidth', 'int2'], ['resolutionheight', 'int2'], ['resolutiondepth', 'int2'], ['flashmajor', 'int2'], ['flashminor', 'int2'],
  ['flashminor2', 'text'], ['netmajor', 'int2'], ['netminor', 'int2'], ['useragentmajor', 'int2'], ['useragentminor', 'varchar(255)'],
  ['cookieenable', 'int2'], ['javascriptenable', 'int2'], ['ismobile', 'int2'], ['mobilephone', 'int2'], ['mobilephonemodel', 'text'],
  ['params', 'text'], ['ipnetworkid', 'int4'], ['traficsourceid', 'int2'], ['searchengineid', 'int2'], ['searchphrase', 'text'],
  ['advengineid', 'int2'], ['isartifical', 'int2'], ['windowclientwidth', 'int2'], ['windowclientheight', 'int2'], ['clienttimezone', 'int2'],
  ['clienteventtime', 'timestamp'], ['silverlightversion1', 'int2'], ['silverlightversion2', 'int2'], ['silverlightversion3', 'int4'], ['silverlightversion4', 'int2'],
  ['pagecharset', 'text'], ['codeversion', 'int4'], ['islink', 'int2'], ['isdownload', 'int2'], ['isnotbounce', 'int2'],
  ['funiqid', 'int8'], ['originalurl', 'text'], ['hid', 'int4'], ['isoldcounter', 'int2'], ['isevent', 'int2'],
  ['isparameter', 'int2'], ['dontcounthits', 'int2'], ['withhash', 'int2'], ['hitcolor', 'bpchar(1)'], ['localeventtime', 'timestamp'],
  ['age', 'int2'], ['sex', 'int2'], ['income', 'int2'], ['interests', 'int2'], ['robotness', 'int2'],
  ['remoteip', 'int4'], ['windowname', 'int4'], ['openername', 'int4'], ['historylength', 'int2'], ['browserlanguage', 'text'],
  ['browsercountry', 'text'], ['socialnetwork', 'text'], ['socialaction', 'text'], ['httperror', 'int2'], ['sendtiming', 'int4'],
  ['dnstiming', 'int4'], ['connecttiming', 'int4'], ['responsestarttiming', 'int4'], ['responseendtiming', 'int4'], ['fetchtiming', 'int4'],
  ['socialsourcenetworkid', 'int2'], ['socialsourcepage', 'text'], ['paramprice', 'int8'], ['paramorderid', 'text'], ['paramcurrency', 'text'],
  ['paramcurrencyid', 'int2'], ['openstatservicename', 'text'], ['openstatcampaignid', 'text'], ['openstatadid', 'text'], ['openstatsourceid', 'text'],
  ['utmsource', 'text'], ['utmmedium', 'text'], ['utmcampaign', 'text'], ['utmcontent', 'text'], ['utmterm', 'text'],
  ['fromtag', 'text'], ['hasgclid', 'int2'], ['refererhash', 'int8'], ['urlhash', 'int8'], ['clid', 'int4'],
];

export const HITS_COLUMNS: readonly ColumnSpec[] = SCHEMA.map(([name, type]) => ({ name, type, notNull: true }));
export const HITS_TYPES: readonly PgType[] = HITS_COLUMNS.map((c) => parseTypeName(String(c.type)));

/** The constants of queries 20, 41 and 42, which the data must contain. */
export const HEAVY_USER = 435090932899640449n;
export const HOME_URL_HASH = 2868770270353813622n;
export const SECOND_PAGE_REFERER_HASH = 3594120000172545465n;
export const BIG_COUNTER = 62;

export interface HitsTable {
  readonly name: 'hits';
  readonly columns: readonly ColumnSpec[];
  readonly types: readonly PgType[];
  readonly rows: number;
  /** The rows in batches of `batchRows`, the same every call. */
  batches(batchRows?: number): Generator<Batch>;
}

export function hitsTable(rows: number, seed = 19): HitsTable {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`hits: rows must be a positive integer, got ${rows}`);
  return {
    name: 'hits',
    columns: HITS_COLUMNS,
    types: HITS_TYPES,
    rows,
    *batches(batchRows = 65536) {
      const g = new HitGenerator(rows, seed);
      for (let start = 0; start < rows; start += batchRows) {
        const n = Math.min(batchRows, rows - start);
        const cols: Value[][] = HITS_TYPES.map(() => new Array<Value>(n));
        for (let i = 0; i < n; i++) g.row(cols, i);
        yield { length: n, columns: cols.map((c, j) => columnOf(HITS_TYPES[j]!, c)), selection: null };
      }
    },
  };
}

// ---- distributions ------------------------------------------------------------------------

/** Ranks 0..n-1 with P(k) ∝ 1/(k+1)^s, drawn by binary search over the cumulative weights. */
class Zipf {
  private readonly cdf: Float64Array;
  constructor(n: number, s: number) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) this.cdf[k] = sum += 1 / (k + 1) ** s;
    for (let k = 0; k < n; k++) this.cdf[k]! /= sum;
  }
  draw(rng: Rng): number {
    return this.at(rng.next());
  }
  /** The rank at cumulative probability u ∈ [0, 1). */
  at(u: number): number {
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** A 32-bit hash of (a, b): the attributes an entity (user, counter) keeps across hits. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A 64-bit hash of a string as a signed int8: two 32-bit FNV-1a over its UTF-16 code units. */
function hash64(s: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 13), 0x01000193);
  }
  return BigInt.asIntN(64, (BigInt(a >>> 0) << 32n) | BigInt(b >>> 0));
}

// ---- vocabularies ---------------------------------------------------------------------------

const WORDS = (
  'weather news cars football recipes music movies download free online photo video games maps ' +
  'hotel flights tickets price buy sale apartment rent jobs bank credit loan phone iphone samsung ' +
  'laptop windows google translate dictionary school university lyrics series torrent book shop ' +
  'погода новости авто футбол рецепты музыка фильмы скачать бесплатно онлайн фото видео игры карта ' +
  'гостиница билеты цена купить квартира работа банк кредит телефон ноутбук словарь школа сериал книги'
).split(' ');
const TLDS = ['ru', 'com', 'net', 'ua', 'org', 'com.tr', 'by', 'kz', 'de'];
const SITE_WORDS = ['auto', 'news', 'shop', 'market', 'mail', 'photo', 'kino', 'city', 'sport', 'forum', 'travel', 'realty', 'job', 'music', 'game'];
const PHONE_MODELS = ['iPad', 'iPhone', 'GT-I9300', 'GT-I9100', 'GT-N7100', 'HTC Desire', 'Lumia 920', 'GT-S5830', 'A500', 'MB525', 'Galaxy Nexus', 'Xperia Z', 'Nokia 5230', 'LT26i', 'GT-P5100'];
const LANGUAGES = ['ru', 'en', 'uk', 'tr', 'de', 'kk', 'be', 'fr'];
const COUNTRIES = ['RU', 'UA', 'TR', 'KZ', 'BY', 'US', 'DE', ''];
const CHARSETS = ['utf-8', 'windows-1251', 'koi8-r', ''];
const HIT_COLORS = ['E', 'F', 'D', 'A', 'B'];
const RESOLUTIONS: readonly (readonly [number, number])[] = [
  [1920, 1080], [1366, 768], [1280, 1024], [1280, 800], [1440, 900], [1600, 900], [1024, 768], [1680, 1050], [1920, 1200], [800, 600], [360, 640], [768, 1024], [320, 480],
];
const JULY_1_2013_DAYS = 15887;
const DAY_SECONDS = 86_400;
const TZ_HOURS = [3, 4, 2, 6];
const TZ_US = Array.from({ length: 7 }, (_, h) => BigInt(h) * 3_600_000_000n);
const CLIENT_LAG_US = Array.from({ length: 31 }, (_, s) => BigInt(s) * 1_000_000n);

/** The generator's state: the pools (sites, pages, users, phrases, titles) and one RNG. */
class HitGenerator {
  private readonly rng: Rng;
  private readonly counterIds: Int32Array;
  private readonly counterZipf: Zipf;
  private readonly pageZipf: Zipf;
  private readonly pagesPerSite: number;
  private readonly userZipf: Zipf;
  private readonly users: number;
  private readonly phraseZipf: Zipf;
  private readonly phrases: string[];
  private readonly titleZipf: Zipf;
  private readonly titles: string[];
  private readonly regionZipf: Zipf;
  private readonly advZipf = new Zipf(30, 1.3);
  private readonly pages = new Map<number, string>();
  private readonly hashes = new Map<string, bigint>();
  private readonly homeUrl: string;
  private readonly secondPage: string;
  private prevWatch = 0n;
  private prevIp = 0;

  constructor(rows: number, seed: number) {
    this.rng = new Rng(seed);
    const counters = Math.max(20, Math.round(rows / 2000));
    this.counterIds = new Int32Array(counters);
    const used = new Set<number>([BIG_COUNTER]);
    this.counterIds[0] = BIG_COUNTER;
    for (let k = 1; k < counters; k++) {
      let id = 0;
      for (let attempt = 0; id === 0 || used.has(id); attempt++) id = 1 + (mix(seed + attempt * 65537, k) % 250_000);
      used.add(id);
      this.counterIds[k] = id;
    }
    this.counterZipf = new Zipf(counters, 1.1);
    this.pagesPerSite = Math.max(50, Math.round(rows / 200));
    this.pageZipf = new Zipf(this.pagesPerSite, 1.0);
    this.users = Math.max(50, Math.round(rows / 8));
    this.userZipf = new Zipf(this.users, 0.85);
    const nPhrases = Math.max(50, Math.round(rows / 25));
    this.phrases = Array.from({ length: nPhrases }, (_, k) => this.wordsFor(k, 1 + (mix(k, 7) % 4)));
    this.phraseZipf = new Zipf(nPhrases, 1.0);
    const nTitles = Math.max(50, Math.round(rows / 15));
    this.titles = Array.from({ length: nTitles }, (_, k) => {
      const t = this.wordsFor(k + 1_000_003, 2 + (mix(k, 11) % 5));
      const head = t.charAt(0).toUpperCase() + t.slice(1);
      return mix(k, 13) % 23 === 0 ? `${head} - Google Search` : mix(k, 17) % 3 === 0 ? `${head} — ${this.siteName(mix(k, 19) % counters)}` : head;
    });
    this.titleZipf = new Zipf(nTitles, 0.95);
    this.regionZipf = new Zipf(4000, 1.2);
    this.homeUrl = this.page(0, 0);
    this.secondPage = this.page(0, 1);
  }

  private wordsFor(k: number, n: number): string {
    const ws: string[] = [];
    for (let j = 0; j < n; j++) ws.push(WORDS[mix(k, j + 101) % WORDS.length]!);
    return ws.join(' ');
  }

  private siteName(rank: number): string {
    if (rank === 0) return 'metrika-big.ru';
    const h = mix(rank, 3);
    return `${SITE_WORDS[h % SITE_WORDS.length]}${rank}.${TLDS[(h >>> 8) % TLDS.length]}`;
  }

  /** Page `p` of site `rank`: its home page first; some paths carry a query string. */
  private page(rank: number, p: number): string {
    const key = rank * this.pagesPerSite + p;
    let s = this.pages.get(key);
    if (s === undefined) {
      s = this.makePage(rank, p);
      if (this.pages.size < 1_000_000) this.pages.set(key, s);
    }
    return s;
  }

  private makePage(rank: number, p: number): string {
    const site = this.siteName(rank);
    if (p === 0) return `http://${site}/`;
    const h = mix(rank * 7919 + p, 5);
    const word = WORDS[h % WORDS.length]!;
    const section = SITE_WORDS[(h >>> 6) % SITE_WORDS.length]!;
    const query = h % 5 === 0 ? `?id=${p}&utm_source=${h % 10 === 0 ? 'google' : 'yandex'}` : '';
    return `http://${h % 4 === 0 ? 'www.' : ''}${site}/${section}/${encodeURIComponent(word)}/${p}.html${query}`;
  }


  /** hash64, remembered for the strings that repeat (pages, referers). */
  private hash(s: string): bigint {
    let h = this.hashes.get(s);
    if (h === undefined) {
      h = hash64(s);
      if (this.hashes.size < 1_000_000) this.hashes.set(s, h);
    }
    return h;
  }

  private userId(u: number): bigint {
    if (u === 3) return HEAVY_USER;
    return (BigInt(mix(u, 23)) << 31n) ^ BigInt(mix(u, 29));
  }

  /** Row i of the batch into `cols` (one array per column). */
  row(cols: Value[][], i: number): void {
    const r = this.rng;
    const counterRank = this.counterZipf.draw(r);
    const counter = this.counterIds[counterRank]!;
    const u = this.userZipf.draw(r);
    const uh = mix(u, 31);
    const userId = this.userId(u);
    const region = 1 + this.regionZipf.at((mix(u, 37) & 0xffffff) / 0x1000000);
    const mobile = uh % 10 === 0;
    const [resW, resH] = mobile ? RESOLUTIONS[10 + (uh % 3)]! : RESOLUTIONS[(uh >>> 4) % 10]!;

    // Time: a day of July 2013, a minute weighted towards the evening, a second.
    const day = r.int(0, 30);
    const minute = Math.min(1439, Math.floor(Math.sqrt(r.next()) * 1440));
    const second = minute * 60 + r.int(0, 59);
    const eventTimeUs = BigInt((JULY_1_2013_DAYS + day) * DAY_SECONDS + second) * 1_000_000n;
    const tzHours = mobile ? 3 : TZ_HOURS[uh % 4]!;

    // URL: a page of the counter's site (home page first), 1% empty.
    const pageRank = this.pageZipf.draw(r);
    const url = r.chance(0.01) ? '' : r.chance(0.03) ? `https://www.google.com/search?q=${encodeURIComponent(this.phrases[this.phraseZipf.draw(r)]!)}` : this.page(counterRank, pageRank);

    // Referer and where the visit came from.
    const kind = r.next();
    let referer = '';
    let trafic = 0;
    let searchEngine = 0;
    let phrase = '';
    if (kind < 0.33) trafic = 0;
    else if (kind < 0.58) {
      trafic = 2;
      const engine = r.next();
      phrase = r.chance(0.85) ? this.phrases[this.phraseZipf.draw(r)]! : '';
      const q = encodeURIComponent(phrase);
      if (engine < 0.75) {
        searchEngine = 2;
        referer = r.chance(0.2) ? `http://www.yandex.ru/yandsearch?text=${q}` : `https://yandex.ru/yandsearch?text=${q}&lr=${region}`;
      } else if (engine < 0.95) {
        searchEngine = 3;
        referer = `http://www.google.ru/url?q=${q}&sa=t`;
      } else {
        searchEngine = 5;
        referer = `http://go.mail.ru/search?q=${q}`;
      }
    } else if (kind < 0.88) {
      trafic = -1;
      referer = this.page(counterRank, this.pageZipf.draw(r));
    } else {
      trafic = r.chance(0.3) ? 6 : 1;
      const other = this.counterZipf.draw(r);
      referer = r.chance(0.1) ? `https://${this.siteName(other)}` : this.page(other, this.pageZipf.draw(r));
    }
    const adv = r.chance(0.03) ? 1 + this.advZipf.draw(r) : 0;
    if (adv !== 0) trafic = 3;

    const repeat = r.chance(0.002) && this.prevWatch !== 0n;
    const watchId = repeat ? this.prevWatch : (BigInt(r.u32() & 0x7fffffff) << 32n) | BigInt((r.u32() | 1) >>> 0);
    const clientIp = repeat ? this.prevIp : r.chance(0.8) ? mix(u, 41) | 0 : r.u32() | 0;
    this.prevWatch = watchId;
    this.prevIp = clientIp;

    const model = mobile ? PHONE_MODELS[(uh >>> 8) % PHONE_MODELS.length]! : '';
    const isLink = r.chance(0.08) ? 1 : 0;
    const title = r.chance(0.04) ? '' : this.titles[this.titleZipf.draw(r)]!;
    const common = r.chance(0.15);
    const winW = common ? Math.max(0, resW - 20) : r.int(300, 2000);
    const winH = common ? Math.max(0, resH - 150) : r.int(200, 1200);
    const utm = url.includes('utm_source=') ? (url.includes('utm_source=google') ? 'google' : 'yandex') : '';
    const hasPrice = r.chance(0.01);

    const v: Value[] = [
      watchId, // watchid
      r.chance(0.7) ? 1 : 0, // javaenable
      title,
      r.chance(0.999) ? 1 : 0, // goodevent
      eventTimeUs,
      JULY_1_2013_DAYS + day, // eventdate
      counter,
      clientIp,
      region,
      userId,
      r.int(0, 3), // counterclass
      (uh >>> 12) % 60, // os
      (uh >>> 18) % 40, // useragent
      url,
      referer,
      r.chance(0.1) ? 1 : 0, // isrefresh
      trafic === 2 ? 1 : r.int(0, 20), // referercategoryid
      trafic === 0 ? 0 : 1 + this.regionZipf.draw(r), // refererregionid
      r.int(0, 20), // urlcategoryid
      region, // urlregionid
      resW,
      resH,
      (uh & 1) === 0 ? 24 : 32, // resolutiondepth
      mobile ? 0 : 11, // flashmajor
      mobile ? 0 : (uh >>> 3) % 8, // flashminor
      mobile ? '' : String((uh >>> 5) % 300), // flashminor2
      (uh >>> 7) % 5, // netmajor
      (uh >>> 9) % 3, // netminor
      (uh >>> 11) % 30, // useragentmajor
      (uh >>> 13) % 3 === 0 ? 'D0' : String((uh >>> 15) % 10), // useragentminor
      1, // cookieenable
      r.chance(0.97) ? 1 : 0, // javascriptenable
      mobile ? 1 : 0, // ismobile
      mobile ? 1 + ((uh >>> 8) % 7) : 0, // mobilephone
      model,
      r.chance(0.02) ? `{"p":${r.int(1, 100)}}` : '', // params
      (clientIp >>> 8) & 0xffffff, // ipnetworkid
      trafic,
      searchEngine,
      phrase,
      adv,
      0, // isartifical
      winW,
      winH,
      tzHours * 60, // clienttimezone (minutes)
      eventTimeUs - CLIENT_LAG_US[r.int(0, 30)]!, // clienteventtime
      mobile ? 0 : 5, // silverlightversion1
      0, // silverlightversion2
      mobile ? 0 : 61118, // silverlightversion3
      0, // silverlightversion4
      CHARSETS[uh % CHARSETS.length]!,
      500 + (counterRank % 50), // codeversion
      isLink,
      r.chance(0.01) ? 1 : 0, // isdownload
      r.chance(0.4) ? 1 : 0, // isnotbounce
      r.chance(0.5) ? 0n : BigInt(mix(u, 43)) * 7n, // funiqid
      r.chance(0.05) ? url : '', // originalurl
      r.u32() | 0, // hid
      0, // isoldcounter
      r.chance(0.05) ? 1 : 0, // isevent
      r.chance(0.03) ? 1 : 0, // isparameter
      r.chance(0.05) ? 1 : 0, // dontcounthits
      0, // withhash
      HIT_COLORS[r.int(0, 2) === 0 ? r.int(0, 4) : 0]!, // hitcolor
      eventTimeUs + TZ_US[tzHours]!, // localeventtime
      (uh >>> 20) % 6, // age
      (uh >>> 23) % 3, // sex
      (uh >>> 25) % 5, // income
      r.chance(0.5) ? 0 : r.int(1, 1000), // interests
      r.chance(0.95) ? 0 : r.int(1, 20), // robotness
      r.u32() | 0, // remoteip
      r.chance(0.7) ? -1 : r.int(0, 100000), // windowname
      r.chance(0.9) ? -1 : r.int(0, 100000), // openername
      r.int(0, 20), // historylength
      LANGUAGES[(uh >>> 6) % LANGUAGES.length]!,
      COUNTRIES[(uh >>> 9) % COUNTRIES.length]!,
      trafic === 6 && r.chance(0.5) ? 'vkontakte' : '', // socialnetwork
      '', // socialaction
      r.chance(0.01) ? r.pick([404, 500, 503]) : 0, // httperror
      r.int(0, 3000), // sendtiming
      r.chance(0.6) ? 0 : r.int(1, 500), // dnstiming
      r.chance(0.5) ? 0 : r.int(1, 1000), // connecttiming
      r.int(0, 5000), // responsestarttiming
      r.int(0, 8000), // responseendtiming
      r.int(0, 10000), // fetchtiming
      trafic === 6 ? 1 + r.int(0, 5) : 0, // socialsourcenetworkid
      '', // socialsourcepage
      hasPrice ? BigInt(r.int(100, 100000)) : 0n, // paramprice
      hasPrice ? String(r.int(1, 1_000_000)) : '', // paramorderid
      hasPrice ? r.pick(['RUB', 'USD', 'EUR']) : '', // paramcurrency
      hasPrice ? r.int(1, 3) : 0, // paramcurrencyid
      adv !== 0 && r.chance(0.3) ? 'yandex_direct' : '', // openstatservicename
      adv !== 0 && r.chance(0.3) ? String(r.int(1, 5000)) : '', // openstatcampaignid
      '', // openstatadid
      '', // openstatsourceid
      utm,
      utm === '' ? '' : 'cpc', // utmmedium
      utm === '' ? '' : `campaign${counterRank % 20}`, // utmcampaign
      '', // utmcontent
      utm === '' ? '' : phrase, // utmterm
      '', // fromtag
      url.includes('gclid') ? 1 : 0, // hasgclid
      referer === this.secondPage ? SECOND_PAGE_REFERER_HASH : this.hash(referer), // refererhash
      url === this.homeUrl ? HOME_URL_HASH : this.hash(url), // urlhash
      r.chance(0.98) ? 0 : r.int(1, 1000), // clid
    ];
    for (let j = 0; j < v.length; j++) cols[j]![i] = v[j]!;
  }
}

// ---- the workload -------------------------------------------------------------------------

const QUERY_FILE = new URL('../../fixtures/clickbench/queries.sql', import.meta.url);

/** The 43 queries of fixtures/clickbench/queries.sql, numbered 1..43 as ClickBench numbers them. */
export function clickbenchQueries(): { n: number; sql: string }[] {
  return readFileSync(QUERY_FILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('--'))
    .map((l, i) => ({ n: i + 1, sql: l.trim().replace(/;$/, '') }));
}

/**
 * The query with the constants sized for the benchmark's 100M rows (HAVING COUNT(*) > 100000,
 * OFFSET 100 and more) multiplied by `factor`, so that a small table answers with rows; the
 * text itself when it has none.
 *
 *   scaleConstants('… HAVING COUNT(*) > 100000 ORDER BY l DESC LIMIT 25', 0.02)  // '… > 2000 …'
 */
export function scaleConstants(sql: string, factor: number): string {
  return sql
    .replace(/(HAVING COUNT\(\*\) > )(\d+)/gi, (_m, head: string, n: string) => `${head}${Math.round(Number(n) * factor)}`)
    .replace(/(\bOFFSET )(\d+)/gi, (m, head: string, n: string) => (Number(n) >= 100 ? `${head}${Math.max(1, Math.round(Number(n) * factor))}` : m));
}
