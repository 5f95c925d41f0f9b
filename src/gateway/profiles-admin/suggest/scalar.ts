/** A leaf of a sample payload: what a value recogniser (shape-*.ts) is given. */
export type Scalar = string | number | boolean | null;
