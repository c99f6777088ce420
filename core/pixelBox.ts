/**
 * A region of an image's pixels that holds every pixel some consumer reads: columns x0..x1 of rows 0..y1
 * (y1 < 0: none). It reaches from the top row because the noise fields that read it are running sums down
 * the image, where a row needs every row above it.
 */
export interface PixelBox {
  x0: number;
  x1: number;
  y1: number;
}

/** An empty box of an image `width` wide, to be grown by extendBox. */
export const emptyBox = (width: number): PixelBox => ({ x0: width, x1: -1, y1: -1 });

/** Grows `box` to hold columns first..last of `row`. */
export function extendBox(box: PixelBox, first: number, last: number, row: number): void {
  if (first < box.x0) box.x0 = first;
  if (last > box.x1) box.x1 = last;
  if (row > box.y1) box.y1 = row;
}
