// Lucene 8.8's answer to dpsearch's field and prefix queries, for
// bench/fields.sh (issue 19: "latency of `title:x y` and of `pre* y`
// against Lucene's equivalents"). Our own driver, timed the way
// ../shared/peers times its Lucene peer (warm-up passes, then one measured
// pass of count then top 10 per query, single thread, no query cache).
//   index CORPUS.jsonl DIR: WhitespaceAnalyzer (the corpus is pre-tokenized),
//     field "text" = title + " " + text (what a bare dpsearch word searches)
//     and field "title", both DOCS_AND_FREQS + norms, one segment.
//   query DIR QUERIES.tsv: id<TAB>query, the query's space-separated words
//     all MUST: title:x is a TermQuery on "title", w* a PrefixQuery on "text"
//     (Lucene's default constant-score rewrite, as a user gets it), other
//     words TermQuerys on "text". Prints id, count, count micros, top-10
//     micros.
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;

public class LuceneFields {
  // The string value of top-level key `key` in a JSON line written by
  // json.dumps (escapes: \" \\ \/ \b \f \n \r \t \\uXXXX), or "".
  static String field(String line, String key) {
    String pat = "\"" + key + "\": \"";
    int i = line.indexOf(pat);
    if (i < 0) return "";
    i += pat.length();
    StringBuilder s = new StringBuilder();
    while (i < line.length()) {
      char c = line.charAt(i++);
      if (c == '"') break;
      if (c != '\\') { s.append(c); continue; }
      char e = line.charAt(i++);
      switch (e) {
        case 'n': s.append('\n'); break;
        case 't': s.append('\t'); break;
        case 'r': s.append('\r'); break;
        case 'b': s.append('\b'); break;
        case 'f': s.append('\f'); break;
        case 'u': s.append((char) Integer.parseInt(line.substring(i, i + 4), 16)); i += 4; break;
        default: s.append(e);
      }
    }
    return s.toString();
  }

  static void index(String corpus, String dir) throws IOException {
    FieldType ft = new FieldType();
    ft.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    ft.setTokenized(true);
    ft.freeze();
    IndexWriterConfig cfg = new IndexWriterConfig(new WhitespaceAnalyzer());
    cfg.setRAMBufferSizeMB(512);
    long start = System.nanoTime();
    try (IndexWriter w = new IndexWriter(FSDirectory.open(Paths.get(dir)), cfg);
         BufferedReader in = Files.newBufferedReader(Paths.get(corpus), StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null;) {
        if (line.isBlank()) continue;
        String title = field(line, "title"), text = field(line, "text");
        Document d = new Document();
        d.add(new Field("text", title + " " + text, ft));
        d.add(new Field("title", title, ft));
        w.addDocument(d);
      }
      w.forceMerge(1);
    }
    System.out.printf("# index_seconds=%.3f%n", (System.nanoTime() - start) / 1e9);
  }

  static Query parse(String s) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (String w : s.trim().split(" +")) {
      Query q;
      if (w.startsWith("title:")) q = new TermQuery(new Term("title", w.substring(6)));
      else if (w.endsWith("*")) q = new PrefixQuery(new Term("text", w.substring(0, w.length() - 1)));
      else q = new TermQuery(new Term("text", w));
      b.add(q, BooleanClause.Occur.MUST);
    }
    return b.build();
  }

  static void query(String dir, String qfile, int passes) throws IOException {
    List<String> ids = new ArrayList<>();
    List<Query> qs = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(qfile), StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#")) continue;
      String[] f = line.split("\t", -1);
      ids.add(f[0]);
      qs.add(parse(f[1]));
    }
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(dir)))) {
      IndexSearcher s = new IndexSearcher(reader);
      s.setQueryCache(null);
      for (int p = 0; p < passes; p++) {
        for (Query q : qs) { s.count(q); s.search(q, 10); }
      }
      int n = qs.size();
      int[] counts = new int[n];
      long[] tCount = new long[n], tTop = new long[n];
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        counts[i] = s.count(qs.get(i));
        long t1 = System.nanoTime();
        s.search(qs.get(i), 10);
        tCount[i] = t1 - t0;
        tTop[i] = System.nanoTime() - t1;
      }
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < n; i++) {
        out.append(ids.get(i)).append('\t').append(counts[i])
            .append(String.format("\t%.2f\t%.2f%n", tCount[i] / 1e3, tTop[i] / 1e3));
      }
      System.out.print(out);
    }
  }

  public static void main(String[] a) throws IOException {
    if (a.length == 3 && a[0].equals("index")) index(a[1], a[2]);
    else if (a.length >= 3 && a[0].equals("query")) query(a[1], a[2], a.length > 3 ? Integer.parseInt(a[3]) : 5);
    else {
      System.err.println("usage: LuceneFields index CORPUS.jsonl DIR | LuceneFields query DIR QUERIES.tsv [PASSES]");
      System.exit(2);
    }
  }
}
