Network n {
  Layer L1 {
    Type: CONV
