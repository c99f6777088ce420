// raster_peer: a compiled peer of our software rasterizer (bridge/sim/raster.ts with bridge/sim/cull.ts),
// the same algorithm written again in C++17, for bench/renderPeer.ts. It renders every camera of a dump as
// render(scene, cam) does with the default options (rgb on, cull on) and must give the same bits: rgb
// (Uint8), depth (float32) and ids (uint16) equal byte for byte. Function names are raster.ts's.
//
// Build (bench/renderPeer.ts does this; -ffp-contract=off: an FMA would change the bits of a*b+c):
//   g++ -O3 -march=native -ffp-contract=off -fno-fast-math -std=c++17 -o raster_peer raster_peer.cpp
// Run:
//   raster_peer DUMP OUT REPS
// renders all views REPS times, timing only the render loop over all views (steady_clock; the outputs'
// buffers are allocated before it), writes the last repetition's images to OUT and prints on stdout
//   {"views":N,"best_ms":..,"all_ms":[..]}
//
// DUMP (little-endian, fields packed in this order, no padding; written by bench/renderPeer.ts):
//   char[8]  magic "ESIRPv01"
//   u32      nTri, nViews, nLights, hasSun (0/1)
//   -- the constants raster.ts, cull.ts and scene.ts export, so that the two cannot drift apart:
//   f64      NEAR_PLANE_M, GLASS_TRANSMITTANCE, FLOOR_TILE_M, CULL_MARGIN_PX, CULL_NEAR_MARGIN_M
//   u32      FLOOR_ID
//   u8[3]    SKY_RGB;  u8[3] colorRgb("glass")
//   f64[256] GLASS_TRANSMITTANCE ** n for n = 0..255, as V8 computes it (V8's pow is not glibc's: they
//            differ in the last bit for 23 of these 256 exponents, so the engine's table is taken)
//   -- lighting
//   f64      ambient; f64[3] sun direction; f64 sun intensity (zeros when hasSun = 0)
//   per light: f64[3] position, f64 intensity, f64 range
//   -- scene (RenderScene's typed arrays, as they are)
//   f32[9 nTri] tris; f32[3 nTri] normals; u16[nTri] triId; u8[3 nTri] triRgb; u8[nTri] triGlass
//   -- cameras
//   per view: u32 width, height; f64 fx, fy, cx, cy; f64[12] E (camera-from-world [R | t], row-major)
// OUT: per view, in order: u8[3 W H] rgb, f32[W H] depth, u16[W H] ids (little-endian).
//
// JS semantics mirrored: numbers are doubles (every double expression here is evaluated in the TS source's
// order); Float32Array stores round to float ((float) of a double is Math.fround); toByte's `| 0` is
// ToInt32; the checker's `^` takes ToInt32 of Math.floor's doubles; Math.max/min return NaN for a NaN
// argument and order +0 above -0 (std::max does neither); `x || 1` replaces 0 and NaN; Math.hypot and
// hypot3 are V8's Kahan-compensated algorithm, not libm's hypot.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace js {
// Math.max(a, b): NaN if either is NaN; +0 is above -0.
inline double max(double a, double b) {
  if (a != a || b != b) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
// Math.min(a, b): NaN if either is NaN; -0 is below +0.
inline double min(double a, double b) {
  if (a != a || b != b) return NAN;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
// ECMAScript ToInt32 (the `| 0` and `^` operators): truncation modulo 2^32, 0 for NaN and infinities.
inline int32_t toInt32(double v) {
  if (v > -2147483649.0 && v < 2147483648.0) return static_cast<int32_t>(v);  // truncation in range: exact
  if (!std::isfinite(v)) return 0;
  double m = std::fmod(std::trunc(v), 4294967296.0);
  if (m < 0) m += 4294967296.0;
  return static_cast<int32_t>(static_cast<uint32_t>(m));
}
// `x || d` for a number x: d when x is 0, -0 or NaN.
inline double orElse(double x, double d) { return (x == 0 || x != x) ? d : x; }
}  // namespace js

// V8's Math.hypot for three finite or non-finite numbers (src/core/math/hypot.ts hypot3 is the same bits):
// the largest magnitude; the squares scaled by it summed in order with Kahan compensation; sqrt, scaled back.
static double hypot3(double a, double b, double c) {
  a = std::fabs(a); b = std::fabs(b); c = std::fabs(c);
  if (std::isinf(a) || std::isinf(b) || std::isinf(c)) return INFINITY;  // Math.hypot: Infinity before NaN
  if (a != a || b != b || c != c) return NAN;
  double max = a;
  if (b > max) max = b;
  if (c > max) max = c;
  if (max == 0) return 0;
  double n = a / max;
  double summand = n * n;
  double sum = summand;
  double comp = sum - summand;
  n = b / max;
  summand = n * n - comp;
  double next = sum + summand;
  comp = next - sum - summand;
  sum = next;
  n = c / max;
  summand = n * n - comp;
  next = sum + summand;
  return std::sqrt(next) * max;
}

// ---- constants: the exported ones come from the dump; these four are private to raster.ts
static double NEAR_PLANE_M, GLASS_TRANSMITTANCE, FLOOR_TILE_M, CULL_MARGIN_PX, CULL_NEAR_MARGIN_M;
static uint32_t FLOOR_ID;
static uint8_t SKY_RGB[3], GLASS_RGB[3];
static double TRANSMIT[256];
static const double FLOOR_DARK_TILE = 0.86;
static const double FACING_MARGIN_PER_M = 1e-5;
static const double FACING_MAX_DEPTH_M = 1e4;
static const uint8_t SIDE_FACING = 1, SIDE_PER_PIXEL = 2, SIDE_FLOOR = 4;

struct PointLight { double pos[3], intensity, range; };
struct Lighting {
  double ambient = 0;
  bool hasSun = false;
  double sunDir[3] = {0, 0, 0}, sunIntensity = 0;
  std::vector<PointLight> lights;
};

struct RenderScene {
  std::vector<float> tris, normals;
  std::vector<uint16_t> triId;
  std::vector<uint8_t> triRgb, triGlass;
  Lighting lighting;
  size_t nTri() const { return triId.size(); }
};

struct RenderCamera {
  int width, height;
  double fx, fy, cx, cy;
  double E[3][4];
};

// ---- cull.ts: runs of one instance's triangles and their world bounds
struct TriangleRuns {
  std::vector<int32_t> start, end;
  std::vector<double> bmin, bmax;  // 3 per run (boundsOf: float vertices as doubles)
  int count() const { return static_cast<int>(start.size()); }
};

static TriangleRuns triangleRuns(const RenderScene& scene) {
  TriangleRuns runs;
  const int n = static_cast<int>(scene.nTri());
  for (int t = 0; t < n; t++)
    if (t == 0 || scene.triId[t] != scene.triId[t - 1]) runs.start.push_back(t);
  for (size_t r = 0; r < runs.start.size(); r++) runs.end.push_back(r + 1 < runs.start.size() ? runs.start[r + 1] : n);
  for (int r = 0; r < runs.count(); r++) {
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 9 * static_cast<size_t>(runs.start[r]); i < 9 * static_cast<size_t>(runs.end[r]); i += 3)
      for (int a = 0; a < 3; a++) {
        const double v = scene.tris[i + a];
        if (v < mn[a]) mn[a] = v;
        if (v > mx[a]) mx[a] = v;
      }
    for (int a = 0; a < 3; a++) runs.bmin.push_back(mn[a]), runs.bmax.push_back(mx[a]);
  }
  return runs;
}

struct CullView {
  const double (*E)[4];
  double fx, fy, cx, cy;
  int W, H;
  double near;
};

// Whether run r can cover no pixel: all 8 box corners behind the near plane or off one side of the image.
static bool runOutsideView(const TriangleRuns& runs, int r, const CullView& v) {
  const double* min = &runs.bmin[3 * r];
  const double* max = &runs.bmax[3 * r];
  const double (*E)[4] = v.E;
  const double left = v.cx + CULL_MARGIN_PX, right = (v.W - 1) + CULL_MARGIN_PX - v.cx;
  const double top = v.cy + CULL_MARGIN_PX, bottom = (v.H - 1) + CULL_MARGIN_PX - v.cy;
  const double nearLimit = v.near - CULL_NEAR_MARGIN_M;
  bool behind = true, offLeft = true, offRight = true, offTop = true, offBottom = true;
  for (int c = 0; c < 8; c++) {
    const double wx = (c & 1 ? max : min)[0], wy = (c & 2 ? max : min)[1], wz = (c & 4 ? max : min)[2];
    const double x = E[0][0] * wx + E[0][1] * wy + E[0][2] * wz + E[0][3];
    const double y = E[1][0] * wx + E[1][1] * wy + E[1][2] * wz + E[1][3];
    const double z = E[2][0] * wx + E[2][1] * wy + E[2][2] * wz + E[2][3];
    if (!(z < nearLimit)) behind = false;
    if (!(v.fx * x + left * z < 0)) offLeft = false;
    if (!(v.fx * x - right * z > 0)) offRight = false;
    if (!(v.fy * y + top * z < 0)) offTop = false;
    if (!(v.fy * y - bottom * z > 0)) offBottom = false;
  }
  return behind || (v.fx > 0 && v.fy > 0 && (offLeft || offRight || offTop || offBottom));
}

// ---- raster.ts
// Scratch buffers reused across views of the same size (getScratch).
struct Scratch {
  size_t n = 0;
  std::vector<float> zOpaque, zGlass;
  std::vector<int32_t> triOpaque, triGlass;
  std::vector<uint8_t> glassLayers;
  void ensure(size_t N) {
    if (n == N) return;
    n = N;
    zOpaque.assign(N, 0); zGlass.assign(N, 0);
    triOpaque.assign(N, 0); triGlass.assign(N, 0);
    glassLayers.assign(N, 0);
  }
};

struct RasterBuffers {
  int W, H;
  float* zO;
  int32_t* tO;
  float* zG;
  int32_t* tG;
  uint8_t* layers;
  bool glass;  // without glass in the scene zG, tG and layers hold stale values and are not read
};

// One view's images, written in place (every pixel of all three is written by render).
struct RenderOutput {
  std::vector<uint8_t> rgb;
  std::vector<float> depth;
  std::vector<uint16_t> ids;
};

// Scan-converts one projected triangle (edge functions >= 0 at pixel centres, stepped by one addition per
// pixel from the box's left column, so every pixel sees a whole-box scan's values).
static void rasterTriangle(RasterBuffers& buf, double x0, double y0, double iz0, double x1, double y1, double iz1,
                           double x2, double y2, double iz2, int32_t tri, bool glass) {
  const int W = buf.W, H = buf.H;
  double area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
  if (!(std::fabs(area) > 1e-12)) return;
  if (area < 0) {  // consistent winding; there is no back-face culling
    std::swap(x1, x2); std::swap(y1, y2); std::swap(iz1, iz2);
    area = -area;
  }
  // as doubles with Math.min/max's semantics; ints once the box is known to be non-empty (then in [0, W-1])
  const double minXd = js::max(0, std::ceil(js::min(js::min(x0, x1), x2)));
  const double maxXd = js::min(W - 1, std::floor(js::max(js::max(x0, x1), x2)));
  const double minYd = js::max(0, std::ceil(js::min(js::min(y0, y1), y2)));
  const double maxYd = js::min(H - 1, std::floor(js::max(js::max(y0, y1), y2)));
  if (minXd > maxXd || minYd > maxYd) return;
  const int minX = static_cast<int>(minXd), maxX = static_cast<int>(maxXd);
  const int minY = static_cast<int>(minYd), maxY = static_cast<int>(maxYd);
  const double inv = 1 / area;
  const double A0 = y1 - y2, B0 = x2 - x1, C0 = x1 * y2 - x2 * y1;  // edge 1->2, weight of vertex 0
  const double A1 = y2 - y0, B1 = x0 - x2, C1 = x2 * y0 - x0 * y2;  // edge 2->0, weight of vertex 1
  const double A2 = y0 - y1, B2 = x1 - x0, C2 = x0 * y1 - x1 * y0;  // edge 0->1, weight of vertex 2
  float* zO = buf.zO;
  const double base0 = A0 * minXd, base1 = A1 * minXd, base2 = A2 * minXd;
  for (int y = minY; y <= maxY; y++) {
    const double yd = y;
    double w0 = base0 + B0 * yd + C0;
    double w1 = base1 + B1 * yd + C1;
    double w2 = base2 + B2 * yd + C2;
    int x = minX;
    // to the span's first pixel (a NaN edge value counts as inside, as in the test below)
    while (x <= maxX && (w0 < 0 || w1 < 0 || w2 < 0)) {
      x++;
      w0 += A0; w1 += A1; w2 += A2;
    }
    size_t idx = static_cast<size_t>(y) * W + x;
    if (!glass) {
      int32_t* tO = buf.tO;
      for (; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
        if (w0 < 0 || w1 < 0 || w2 < 0) break;
        const double iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
        if (iz <= 0) continue;
        const double z = 1 / iz;
        if (z < zO[idx]) {  // the double against the stored float, as JS compares them
          zO[idx] = static_cast<float>(z);  // Float32Array store: Math.fround
          tO[idx] = tri;
        }
      }
    } else {
      float* zG = buf.zG;
      int32_t* tG = buf.tG;
      uint8_t* layers = buf.layers;
      for (; x <= maxX; x++, idx++, w0 += A0, w1 += A1, w2 += A2) {
        if (w0 < 0 || w1 < 0 || w2 < 0) break;
        const double iz = (w0 * iz0 + w1 * iz1 + w2 * iz2) * inv;
        if (iz <= 0) continue;
        const double z = 1 / iz;
        if (z < zO[idx]) {
          if (layers[idx] < 255) layers[idx]++;
          if (z < zG[idx]) {
            zG[idx] = static_cast<float>(z);
            tG[idx] = tri;
          }
        }
      }
    }
  }
}

// A triangle's camera-space vertices and its (up to 4) near-clipped, projected polygon.
struct ClipPolygon { double inX[4], inY[4], inZ[4], cxs[4], cys[4], czs[4], px[4], py[4], piz[4]; };

// Transforms, near-clips (Sutherland-Hodgman, one plane), projects and scan-converts triangles [from, to) of
// one run into the opaque or the glass buffers, skipping the triangles of the other kind.
static void rasterRun(const RenderScene& scene, RasterBuffers& buf, int from, int to, bool glass, const CullView& view,
                      ClipPolygon& poly) {
  const float* tris = scene.tris.data();
  const uint8_t* triGlass = scene.triGlass.data();
  const double (*E)[4] = view.E;
  const double fx = view.fx, fy = view.fy, cx = view.cx, cy = view.cy;
  const double e00 = E[0][0], e01 = E[0][1], e02 = E[0][2], e03 = E[0][3];
  const double e10 = E[1][0], e11 = E[1][1], e12 = E[1][2], e13 = E[1][3];
  const double e20 = E[2][0], e21 = E[2][1], e22 = E[2][2], e23 = E[2][3];
  for (int t = from; t < to; t++) {
    if ((triGlass[t] == 1) != glass) continue;
    const size_t o = static_cast<size_t>(t) * 9;
    int nIn = 0;
    for (int k = 0; k < 3; k++) {
      const double wx = tris[o + 3 * k], wy = tris[o + 3 * k + 1], wz = tris[o + 3 * k + 2];
      poly.inX[k] = e00 * wx + e01 * wy + e02 * wz + e03;
      poly.inY[k] = e10 * wx + e11 * wy + e12 * wz + e13;
      poly.inZ[k] = e20 * wx + e21 * wy + e22 * wz + e23;
      if (poly.inZ[k] >= NEAR_PLANE_M) nIn++;
    }
    if (nIn == 0) continue;
    int n = 0;
    for (int k = 0; k < 3; k++) {
      const int j = k == 2 ? 0 : k + 1;
      const double zk = poly.inZ[k], zj = poly.inZ[j];
      const bool kIn = zk >= NEAR_PLANE_M, jIn = zj >= NEAR_PLANE_M;
      if (kIn) {
        poly.cxs[n] = poly.inX[k]; poly.cys[n] = poly.inY[k]; poly.czs[n] = zk; n++;
      }
      if (kIn != jIn) {
        const double f = (NEAR_PLANE_M - zk) / (zj - zk);
        poly.cxs[n] = poly.inX[k] + f * (poly.inX[j] - poly.inX[k]);
        poly.cys[n] = poly.inY[k] + f * (poly.inY[j] - poly.inY[k]);
        poly.czs[n] = NEAR_PLANE_M;
        n++;
      }
    }
    for (int k = 0; k < n; k++) {
      const double iz = 1 / poly.czs[k];
      poly.px[k] = fx * poly.cxs[k] * iz + cx;
      poly.py[k] = fy * poly.cys[k] * iz + cy;
      poly.piz[k] = iz;
    }
    const double* px = poly.px; const double* py = poly.py; const double* piz = poly.piz;
    rasterTriangle(buf, px[0], py[0], piz[0], px[1], py[1], piz[1], px[2], py[2], piz[2], t, glass);
    if (n == 4) rasterTriangle(buf, px[0], py[0], piz[0], px[2], py[2], piz[2], px[3], py[3], piz[3], t, glass);
  }
}

// Depth and id of pixel p: the nearest glass surface where there is one, else the opaque surface (the
// rgb-off path; with rgb on, shade writes the same). Outputs are reused here, so sky is written as 0.
static void resolvePixel(const RasterBuffers& buf, const uint16_t* triId, size_t p, float* depth, uint16_t* ids) {
  const int32_t g = buf.glass ? buf.tG[p] : -1;
  if (g >= 0) {
    depth[p] = buf.zG[p];
    ids[p] = triId[g];
  } else {
    const int32_t t = buf.tO[p];
    if (t >= 0) {
      depth[p] = buf.zO[p];
      ids[p] = triId[t];
    } else {
      depth[p] = 0;
      ids[p] = 0;
    }
  }
}

// A shaded value as a byte: clamped, rounded half up (Math.round's value); `| 0` is ToInt32 (NaN gives 0),
// and the Uint8Array store keeps the low 8 bits.
static inline uint8_t toByte(double v) {
  return v > 255 ? 255 : v < 0.5 ? 0 : static_cast<uint8_t>(js::toInt32(v + 0.5));
}

// Without point lights: 4 RGB entries per triangle (front/back x light/dark tile), shade's arithmetic.
static void surfaceColours(const RenderScene& scene, double ambient, double sunI, double sdx, double sdy, double sdz,
                           std::vector<double>& out) {
  const float* normals = scene.normals.data();
  const uint8_t* triRgb = scene.triRgb.data();
  const size_t nTri = scene.nTri();
  out.resize(nTri * 12);
  for (size_t t = 0; t < nTri; t++) {
    for (int side = 0; side < 2; side++) {
      double nx = normals[t * 3], ny = normals[t * 3 + 1], nz = normals[t * 3 + 2];
      if (side == 1) { nx = -nx; ny = -ny; nz = -nz; }
      const double light = ambient + sunI * js::max(0, nx * sdx + ny * sdy + nz * sdz);
      for (int dark = 0; dark < 2; dark++) {
        double ar = triRgb[t * 3], ag = triRgb[t * 3 + 1], ab = triRgb[t * 3 + 2];
        if (dark == 1) { ar *= FLOOR_DARK_TILE; ag *= FLOOR_DARK_TILE; ab *= FLOOR_DARK_TILE; }
        const size_t k = (t * 4 + side * 2 + dark) * 3;
        out[k] = ar * light;
        out[k + 1] = ag * light;
        out[k + 2] = ab * light;
      }
    }
  }
}

// Per triangle: the side the camera sees where it is the same at every pixel (else SIDE_PER_PIXEL), and
// SIDE_FLOOR for the floor.
static void sideCodes(const RenderScene& scene, double Cx, double Cy, double Cz, const double (*E)[4], bool perPixel,
                      std::vector<uint8_t>& out) {
  const float* tris = scene.tris.data();
  const float* normals = scene.normals.data();
  const size_t nTri = scene.nTri();
  out.resize(nTri);
  const double e20 = E[2][0], e21 = E[2][1], e22 = E[2][2], e23 = E[2][3];
  for (size_t t = 0; t < nTri; t++) {
    const size_t o = t * 9;
    const double x0 = tris[o], y0 = tris[o + 1], z0 = tris[o + 2];
    double size = 0, depth = 0;
    for (int k = 0; k < 3; k++) {
      const double x = tris[o + 3 * k], y = tris[o + 3 * k + 1], z = tris[o + 3 * k + 2];
      size = js::max(size, std::fabs(x - x0) + std::fabs(y - y0) + std::fabs(z - z0));
      depth = js::max(depth, std::fabs(e20 * x + e21 * y + e22 * z + e23));
    }
    const double s = normals[t * 3] * (x0 - Cx) + normals[t * 3 + 1] * (y0 - Cy) + normals[t * 3 + 2] * (z0 - Cz);
    uint8_t code = !perPixel && std::fabs(s) > FACING_MARGIN_PER_M * (size + 1) && depth < FACING_MAX_DEPTH_M
                       ? (s > 0 ? SIDE_FACING : 0)
                       : SIDE_PER_PIXEL;
    if (scene.triId[t] == FLOOR_ID) code |= SIDE_FLOOR;
    out[t] = code;
  }
}

// Per-view scratch of shade (fresh typed arrays per call in TS; kept here, the same values).
struct ShadeScratch {
  std::vector<double> xnOf, surface;
  std::vector<uint8_t> sides, surfaceBytes;
};

// Deferred Lambert shading of the opaque surface, glass blended over it; writes depth and ids as resolvePixel.
static void shade(const RenderScene& scene, const RenderCamera& cam, const RasterBuffers& buf, RenderOutput& outImg,
                  bool sidesPerPixel, ShadeScratch& ss) {
  const float* zO = buf.zO; const int32_t* tO = buf.tO;
  const float* zG = buf.zG; const int32_t* tG = buf.tG; const uint8_t* layers = buf.layers;
  const bool glass = buf.glass;
  const int W = cam.width, H = cam.height;
  const double fx = cam.fx, fy = cam.fy, cx = cam.cx, cy = cam.cy;
  const double (*E)[4] = cam.E;
  // camera centre C = -R^T t and world-from-camera rotation columns
  const double r00 = E[0][0], r01 = E[0][1], r02 = E[0][2], r10 = E[1][0], r11 = E[1][1], r12 = E[1][2], r20 = E[2][0],
               r21 = E[2][1], r22 = E[2][2];
  const double Cx = -(r00 * E[0][3] + r10 * E[1][3] + r20 * E[2][3]);
  const double Cy = -(r01 * E[0][3] + r11 * E[1][3] + r21 * E[2][3]);
  const double Cz = -(r02 * E[0][3] + r12 * E[1][3] + r22 * E[2][3]);
  const Lighting& L = scene.lighting;
  const bool sun = L.hasSun;
  // Math.hypot(...sun.direction) || 1
  const double sunLen = sun ? js::orElse(hypot3(L.sunDir[0], L.sunDir[1], L.sunDir[2]), 1) : 1;
  const double sdx = sun ? -L.sunDir[0] / sunLen : 0, sdy = sun ? -L.sunDir[1] / sunLen : 0, sdz = sun ? -L.sunDir[2] / sunLen : 0;
  const double sunI = sun ? L.sunIntensity : 0;
  const double ambient = L.ambient;
  const size_t nLights = L.lights.size();
  const double TILES_PER_M = 1 / FLOOR_TILE_M;
  ss.xnOf.resize(W);
  for (int i = 0; i < W; i++) ss.xnOf[i] = (i - cx) / fx;
  const double* xnOf = ss.xnOf.data();
  const float* normals = scene.normals.data();
  const uint8_t* triRgb = scene.triRgb.data();
  const uint16_t* triId = scene.triId.data();
  const double skyR = SKY_RGB[0], skyG = SKY_RGB[1], skyB = SKY_RGB[2];
  const double glassR = GLASS_RGB[0], glassG = GLASS_RGB[1], glassB = GLASS_RGB[2];
  const bool useSurface = nLights == 0;
  const double* surface = nullptr;
  const uint8_t* sides = nullptr;
  const uint8_t* surfaceBytes = nullptr;
  if (useSurface) {
    surfaceColours(scene, ambient, sunI, sdx, sdy, sdz, ss.surface);
    sideCodes(scene, Cx, Cy, Cz, E, sidesPerPixel, ss.sides);
    ss.surfaceBytes.resize(ss.surface.size());
    for (size_t k = 0; k < ss.surface.size(); k++) ss.surfaceBytes[k] = toByte(ss.surface[k]);
    surface = ss.surface.data(); sides = ss.sides.data(); surfaceBytes = ss.surfaceBytes.data();
  }
  uint8_t* out = outImg.rgb.data();
  float* depth = outImg.depth.data();
  uint16_t* ids = outImg.ids.data();
  // depth.set(zO): the opaque depth copied in whole; glass and sky overwrite it below
  std::memcpy(depth, zO, sizeof(float) * static_cast<size_t>(W) * H);
  for (int j = 0; j < H; j++) {
    const double yn = (j - cy) / fy;
    size_t p = static_cast<size_t>(j) * W;
    for (int i = 0; i < W; i++, p++) {
      const int32_t t = tO[p], tg = glass ? tG[p] : -1;
      if (tg >= 0) {
        depth[p] = zG[p];
        ids[p] = triId[tg];
      } else if (t >= 0) {
        ids[p] = triId[t];
      } else {
        depth[p] = 0;
        ids[p] = 0;  // TS's ids are a fresh zeroed array; ours is reused
      }
      double r, g, b;
      if (t < 0) {
        r = skyR; g = skyG; b = skyB;
      } else {
        const double xn = xnOf[i];
        if (useSurface) {
          const uint8_t code = sides[t];
          bool facing = (code & SIDE_FACING) != 0;
          int dark = 0;
          if (code & (SIDE_PER_PIXEL | SIDE_FLOOR)) {
            const double dx = r00 * xn + r10 * yn + r20, dy = r01 * xn + r11 * yn + r21;
            if (code & SIDE_PER_PIXEL)
              facing = normals[t * 3] * dx + normals[t * 3 + 1] * dy + normals[t * 3 + 2] * (r02 * xn + r12 * yn + r22) > 0;
            if (code & SIDE_FLOOR) {
              const double z = zO[p];
              dark = (js::toInt32(std::floor((Cx + z * dx) * TILES_PER_M)) ^ js::toInt32(std::floor((Cy + z * dy) * TILES_PER_M))) & 1;
            }
          }
          const size_t k = (static_cast<size_t>(t) * 4 + (facing ? 2 : 0) + dark) * 3;
          if (!(tg >= 0 && layers[p] > 0)) {  // no glass in front: the table's rounded bytes
            const size_t o = p * 3;
            out[o] = surfaceBytes[k];
            out[o + 1] = surfaceBytes[k + 1];
            out[o + 2] = surfaceBytes[k + 2];
            continue;
          }
          r = surface[k]; g = surface[k + 1]; b = surface[k + 2];
        } else {
          // ray direction in world (camera z = 1) and the surface point
          const double dx = r00 * xn + r10 * yn + r20, dy = r01 * xn + r11 * yn + r21, dz = r02 * xn + r12 * yn + r22;
          double nx = normals[t * 3], ny = normals[t * 3 + 1], nz = normals[t * 3 + 2];
          const bool facing = nx * dx + ny * dy + nz * dz > 0;
          const bool floor = triId[t] == FLOOR_ID;
          const double z = zO[p];
          const double X = Cx + z * dx, Y = Cy + z * dy, Z = Cz + z * dz;
          if (facing) { nx = -nx; ny = -ny; nz = -nz; }
          double light = ambient + sunI * js::max(0, nx * sdx + ny * sdy + nz * sdz);
          for (size_t k = 0; k < nLights; k++) {
            const PointLight& lt = L.lights[k];
            const double lx = lt.pos[0] - X, ly = lt.pos[1] - Y, lz = lt.pos[2] - Z;
            const double dot = nx * lx + ny * ly + nz * lz;
            if (dot <= 0) continue;  // a light behind the surface adds +0
            const double d = js::orElse(hypot3(lx, ly, lz), 1e-6);
            const double lambert = js::max(0, dot / d);
            const double dr = d / lt.range;
            light += (lt.intensity * lambert) / (1 + dr * dr);
          }
          double ar = triRgb[t * 3], ag = triRgb[t * 3 + 1], ab = triRgb[t * 3 + 2];
          if (floor && ((js::toInt32(std::floor(X * TILES_PER_M)) ^ js::toInt32(std::floor(Y * TILES_PER_M))) & 1) == 1) {
            ar *= FLOOR_DARK_TILE; ag *= FLOOR_DARK_TILE; ab *= FLOOR_DARK_TILE;
          }
          r = ar * light; g = ag * light; b = ab * light;
        }
      }
      const int n = tg >= 0 ? layers[p] : 0;  // tg first: without glass in the scene, layers is not read
      if (n > 0) {
        const double tr = TRANSMIT[n];
        r = r * tr + glassR * (1 - tr);
        g = g * tr + glassG * (1 - tr);
        b = b * tr + glassB * (1 - tr);
      }
      const size_t o = p * 3;
      out[o] = toByte(r);
      out[o + 1] = toByte(g);
      out[o + 2] = toByte(b);
    }
  }
}

struct RenderState {
  Scratch scratch;
  ShadeScratch shade;
  std::vector<uint8_t> visible;
  ClipPolygon polygon;
};

// render(scene, cam) with { rgb, cull } (onlyIds and sidesPerPixel are the tests' options, left out).
static void render(const RenderScene& scene, const TriangleRuns& runs, const RenderCamera& cam, RenderOutput& out,
                   RenderState& st, bool rgb = true, bool cull = true) {
  const int W = cam.width, H = cam.height;
  const size_t N = static_cast<size_t>(W) * H;
  Scratch& s = st.scratch;
  s.ensure(N);
  std::fill(s.zOpaque.begin(), s.zOpaque.end(), INFINITY);
  std::fill(s.triOpaque.begin(), s.triOpaque.end(), -1);
  // the glass buffers are cleared and read only when the scene has glass
  const bool glassScene = std::find(scene.triGlass.begin(), scene.triGlass.end(), 1) != scene.triGlass.end();
  if (glassScene) {
    std::fill(s.zGlass.begin(), s.zGlass.end(), INFINITY);
    std::fill(s.triGlass.begin(), s.triGlass.end(), -1);
    std::fill(s.glassLayers.begin(), s.glassLayers.end(), 0);
  }
  RasterBuffers buf{W, H, s.zOpaque.data(), s.triOpaque.data(), s.zGlass.data(), s.triGlass.data(), s.glassLayers.data(), glassScene};
  const CullView view{cam.E, cam.fx, cam.fy, cam.cx, cam.cy, W, H, NEAR_PLANE_M};
  st.visible.resize(runs.count());
  for (int r = 0; r < runs.count(); r++) st.visible[r] = !(cull && runOutsideView(runs, r, view)) ? 1 : 0;
  for (int pass = 0; pass < (glassScene ? 2 : 1); pass++) {
    const bool glass = pass == 1;
    for (int r = 0; r < runs.count(); r++)
      if (st.visible[r]) rasterRun(scene, buf, runs.start[r], runs.end[r], glass, view, st.polygon);
  }
  if (!rgb) {
    for (size_t p = 0; p < N; p++) resolvePixel(buf, scene.triId.data(), p, out.depth.data(), out.ids.data());
  } else {
    shade(scene, cam, buf, out, false, st.shade);
  }
}

// ---- the dump
struct Reader {
  std::vector<char> data;
  size_t at = 0;
  void bytes(void* dst, size_t n) {
    if (at + n > data.size()) { std::fprintf(stderr, "raster_peer: dump truncated at byte %zu\n", at); std::exit(2); }
    std::memcpy(dst, data.data() + at, n);  // the dump is little-endian, as x86-64 and arm64 are
    at += n;
  }
  template <class T> T get() { T v; bytes(&v, sizeof v); return v; }
  template <class T> void vec(std::vector<T>& v, size_t n) { v.resize(n); bytes(v.data(), n * sizeof(T)); }
};

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: raster_peer DUMP OUT REPS\n");
    return 2;
  }
  const int reps = std::max(1, std::atoi(argv[3]));
  Reader rd;
  {
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 2; }
    std::fseek(f, 0, SEEK_END);
    rd.data.resize(static_cast<size_t>(std::ftell(f)));
    std::fseek(f, 0, SEEK_SET);
    if (std::fread(rd.data.data(), 1, rd.data.size(), f) != rd.data.size()) { std::perror(argv[1]); return 2; }
    std::fclose(f);
  }
  char magic[8];
  rd.bytes(magic, 8);
  if (std::memcmp(magic, "ESIRPv01", 8) != 0) { std::fprintf(stderr, "raster_peer: not a dump (magic)\n"); return 2; }
  const uint32_t nTri = rd.get<uint32_t>(), nViews = rd.get<uint32_t>(), nLights = rd.get<uint32_t>(), hasSun = rd.get<uint32_t>();
  NEAR_PLANE_M = rd.get<double>();
  GLASS_TRANSMITTANCE = rd.get<double>();
  FLOOR_TILE_M = rd.get<double>();
  CULL_MARGIN_PX = rd.get<double>();
  CULL_NEAR_MARGIN_M = rd.get<double>();
  FLOOR_ID = rd.get<uint32_t>();
  rd.bytes(SKY_RGB, 3);
  rd.bytes(GLASS_RGB, 3);
  rd.bytes(TRANSMIT, sizeof TRANSMIT);
  RenderScene scene;
  scene.lighting.ambient = rd.get<double>();
  scene.lighting.hasSun = hasSun != 0;
  rd.bytes(scene.lighting.sunDir, sizeof scene.lighting.sunDir);
  scene.lighting.sunIntensity = rd.get<double>();
  for (uint32_t k = 0; k < nLights; k++) {
    PointLight lt;
    rd.bytes(lt.pos, sizeof lt.pos);
    lt.intensity = rd.get<double>();
    lt.range = rd.get<double>();
    scene.lighting.lights.push_back(lt);
  }
  rd.vec(scene.tris, 9 * static_cast<size_t>(nTri));
  rd.vec(scene.normals, 3 * static_cast<size_t>(nTri));
  rd.vec(scene.triId, nTri);
  rd.vec(scene.triRgb, 3 * static_cast<size_t>(nTri));
  rd.vec(scene.triGlass, nTri);
  std::vector<RenderCamera> cams(nViews);
  for (RenderCamera& c : cams) {
    c.width = static_cast<int>(rd.get<uint32_t>());
    c.height = static_cast<int>(rd.get<uint32_t>());
    c.fx = rd.get<double>(); c.fy = rd.get<double>(); c.cx = rd.get<double>(); c.cy = rd.get<double>();
    rd.bytes(c.E, sizeof c.E);
  }
  if (rd.at != rd.data.size()) { std::fprintf(stderr, "raster_peer: %zu bytes left over in the dump\n", rd.data.size() - rd.at); return 2; }

  // computed once per scene, as triangleRuns caches it per scene (outside the timing in both)
  const TriangleRuns runs = triangleRuns(scene);
  std::vector<RenderOutput> outs(nViews);
  for (uint32_t v = 0; v < nViews; v++) {
    const size_t N = static_cast<size_t>(cams[v].width) * cams[v].height;
    outs[v].rgb.assign(3 * N, 0); outs[v].depth.assign(N, 0); outs[v].ids.assign(N, 0);
  }
  RenderState state;
  std::vector<double> all;
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    const auto t0 = std::chrono::steady_clock::now();
    for (uint32_t v = 0; v < nViews; v++) render(scene, runs, cams[v], outs[v], state);
    const auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    all.push_back(ms);
    best = std::min(best, ms);
  }

  FILE* f = std::fopen(argv[2], "wb");
  if (!f) { std::perror(argv[2]); return 2; }
  for (const RenderOutput& o : outs) {
    std::fwrite(o.rgb.data(), 1, o.rgb.size(), f);
    std::fwrite(o.depth.data(), sizeof(float), o.depth.size(), f);
    std::fwrite(o.ids.data(), sizeof(uint16_t), o.ids.size(), f);
  }
  if (std::fclose(f) != 0) { std::perror(argv[2]); return 2; }
  std::printf("{\"views\":%u,\"best_ms\":%.4f,\"all_ms\":[", nViews, best);
  for (size_t i = 0; i < all.size(); i++) std::printf("%s%.4f", i ? "," : "", all[i]);
  std::printf("]}\n");
  return 0;
}
