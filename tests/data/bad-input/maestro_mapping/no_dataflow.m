Network n {
  Layer L1 {
    Type: CONV
    Dimensions { K: 8, C: 4, R: 3, S: 3, Y: 10, X: 10 }
  }
}
