import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { goPorts, rustPorts } from '../../src/ports/source-defaults.ts';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

suite('listen ports written in source', () => {
  test('Go: listen calls, flags, Getenv fallbacks, env helpers and struct tag defaults; never a client', () => {
    const main = [
      'package main',
      'var (',
      '\tport       = flag.Int("port", 9420, "Listen port")',
      '\tdbPort     = flag.Int("db-port", 5432, "database port")',
      '\tredisAddr  = flag.String("redis-addr", "localhost:6379", "")',
      '\tupstream   = flag.String("upstream", "localhost:9000", "")',
      ')',
      'func main() {',
      '\tflag.StringVar(&adminAddr, "admin-addr", ":9001", "admin listener")',
      '\tcmd.Flags().IntVarP(&metrics, "metrics-port", "m", 9102, "")',
      '\taddr := os.Getenv("HTTP_ADDR")',
      '\tif addr == "" {',
      '\t\taddr = "0.0.0.0:8081"',
      '\t}',
      '\tgrpc := cmp.Or(os.Getenv("GRPC_PORT"), "50051")',
      '\tdebug := getEnv("DEBUG_PORT", "6060")',
      '\tdsn := getEnv("DATABASE_HOST", "localhost:5432")',
      '\tclient := redis.NewClient(&redis.Options{Addr: "localhost:6379"})',
      '\t// log.Fatal(http.ListenAndServe(":1111", nil))',
      '\tgo http.ListenAndServe(":8082", nil)',
      '\tsrv := &http.Server{Addr: ":8083", Handler: mux}',
      '\tln, _ := net.Listen("tcp", "127.0.0.1:8084")',
      '\tconn, _ := net.Dial("tcp", "localhost:8085")',
      '\tr.Run(":8086")',
      '}',
    ].join('\n');
    assert.deepEqual(goPorts(main).sort((a, b) => a - b), [6060, 8081, 8082, 8083, 8084, 8086, 9001, 9102, 9420, 50051]);
    const ardan = [
      'var cfg struct {', '\tWeb struct {', '\t\tReadTimeout time.Duration `conf:"default:5s"`',
      '\t\tAPIHost     string        `conf:"default:0.0.0.0:3000"`', '\t\tDebugHost   string        `conf:"default:0.0.0.0:4000"`',
      '\t}', '\tDB struct {', '\t\tHost string `conf:"default:0.0.0.0:26257"`', '\t}', '\tAuth struct {',
      '\t\tHost string `conf:"default:http://auth-service:6000"`', '\t}', '}',
      'type Config struct {', '\tPort int `env:"PORT" envDefault:"8088"`', '\tRedisPort int `env:"REDIS_PORT" envDefault:"6379"`', '}',
    ].join('\n');
    assert.deepEqual(goPorts(ardan), [3000, 4000, 8088]);
    const constant = 'const (\n\tport = "8080"\n)\nfunc main() {\n\tsrvPort := port\n\tif os.Getenv("PORT") != "" {\n\t\tsrvPort = os.Getenv("PORT")\n\t}\n}\n';
    assert.deepEqual(goPorts(constant), [8080]);
    // `$PORT must be set`: no fallback, no port.
    assert.deepEqual(goPorts('port := os.Getenv("PORT")\nif port == "" {\n\tlog.Fatal("$PORT must be set")\n}\n'), []);
  });

  test('Rust: bind literals and tuples, SocketAddr, parsed addresses, env fallbacks and clap defaults; not connect', () => {
    const main = [
      'let listener = tokio::net::TcpListener::bind("0.0.0.0:3000").await?;',
      'HttpServer::new(|| App::new()).bind(("127.0.0.1", 8080))?.run().await',
      'let addr = SocketAddr::from(([0, 0, 0, 0], 3001));',
      'let other = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(0, 0, 0, 0)), 3002);',
      'let parsed: SocketAddr = "[::]:3003".parse().unwrap();',
      'let port = env::var("PORT").unwrap_or_else(|_| "3004".to_string());',
      'let db = env::var("DATABASE_PORT").unwrap_or("5432".into());',
      'let stream = TcpStream::connect("127.0.0.1:6379")?;',
      '// TcpListener::bind("0.0.0.0:1111")',
      '#[derive(Parser)] struct Args {', '    #[arg(short, long, default_value_t = 3005)]', '    port: u16,',
      '    #[arg(long, default_value = "postgres://localhost:5432/db")]', '    database_url: String,', '}',
    ].join('\n');
    assert.deepEqual(rustPorts(main).sort((a, b) => a - b), [3000, 3001, 3002, 3003, 3004, 3005, 8080]);
    const server = 'let port = cli.port.unwrap_or(mini::DEFAULT_PORT);\nlet l = TcpListener::bind(&format!("127.0.0.1:{port}")).await?;\n';
    assert.deepEqual(rustPorts(server, new Map([['DEFAULT_PORT', 6379]])), [6379]);
    // Without a bind in the file (a client), the constant is not a listen port.
    assert.deepEqual(rustPorts('let c = Client::connect(("localhost", cfg.port.unwrap_or(DEFAULT_PORT)));\n', new Map([['DEFAULT_PORT', 6379]])), []);
  });

  test('on a tree: Go main packages, Rust binaries and Python entry files; examples, tests and vendor/ are left out', async (t) => {
    const root = makeTree(t, {
      'go.mod': 'module example.com/app\n',
      'cmd/api/main.go': 'package main\nfunc main() {\n\tport := os.Getenv("PORT")\n\tif port == "" {\n\t\tport = "8080"\n\t}\n\thttp.ListenAndServe(":"+port, nil)\n}\n',
      'cmd/api/config.go': 'package main\nvar metrics = flag.Int("metrics-port", 9090, "")\n',
      'examples/hello/main.go': 'package main\nfunc main() { http.ListenAndServe(":7777", nil) }\n',
      'tools/rs/src/main.rs': 'fn main() { let l = TcpListener::bind("127.0.0.1:7878").unwrap(); }\n',
      // The constant lives in the crate's lib.rs; the binary binds with it.
      'tools/redis/src/lib.rs': 'pub const DEFAULT_PORT: u16 = 6390;\n',
      'tools/redis/src/bin/server.rs': 'let port = cli.port.unwrap_or(DEFAULT_PORT);\nTcpListener::bind(&format!("127.0.0.1:{}", port));\n',
      'api/main.py': 'import os, uvicorn\nif __name__ == "__main__":\n    uvicorn.run("main:app", host="0.0.0.0", port=int(os.getenv("PORT", "8001")))\n',
      'tests/app.py': 'from flask import Flask\napp = Flask(__name__)\napp.run(port=5999)\n',
      // A distributable package's own modules (src layout, a pyproject above): a library's `app.py` is not an
      // app, but a module that starts one under `if __name__ == "__main__":` is, and so is its `__main__.py`.
      'lib/pyproject.toml': '[project]\nname = "weblib"\n',
      'lib/src/weblib/__init__.py': '',
      'lib/src/weblib/app.py': 'class App:\n    def run(self, port=None):\n        socketio.run(self, port=5998)\n',
      'lib/src/weblib/server.py': 'import uvicorn\ndef main():\n    uvicorn.run("weblib.app:app", port=8002)\n\nif __name__ == "__main__":\n    main()\n',
      'lib/src/weblib/__main__.py': 'from aiohttp import web\nweb.run_app(make_app(), port=8003)\n',
      // A vendored Go module's own dev server is not the project's.
      'vendor/github.com/some/viz/static/package.json': JSON.stringify({ scripts: { dev: 'vite' } }),
      // A Go file of a main package at the module root, with gin's bare Run() (8081 would be its own flag).
      'tools/gin/go.mod': 'module example.com/gin\n',
      'tools/gin/hello.go': 'package main\nimport "github.com/gin-gonic/gin"\nfunc main() {\n\tr := gin.Default()\n\tr.Run() // 0.0.0.0:8080\n}\n',
      'tools/gin/routes.go': 'package routes\nfunc x() { http.ListenAndServe(":7001", nil) }\n',
    });
    const result = await scan(root);
    assert.deepEqual(result.ports.map((p) => [p.port, p.script_name, p.config_source]), [
      [6390, null, 'tools/redis/src/bin/server.rs'],
      [7878, null, 'tools/rs/src/main.rs'],
      [8001, null, 'api/main.py'],
      [8002, null, 'lib/src/weblib/server.py'],
      [8003, null, 'lib/src/weblib/__main__.py'],
      [8080, null, 'cmd/api/main.go'],
      [8080, null, 'tools/gin/hello.go'],
      [9090, null, 'cmd/api/config.go'],
    ]);
  });
});
