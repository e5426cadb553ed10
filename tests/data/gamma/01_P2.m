Network 01_P2 {
Layer L01 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
TemporalMap(42,42) C;
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(33,33) K;
SpatialMap(1,1) Y';
TemporalMap(7,7) X';
Cluster(17,P);
SpatialMap(1,1) K;
TemporalMap(1,1) R;
TemporalMap(37,37) C;
TemporalMap(1,1) S;
TemporalMap(1,1) Y';
TemporalMap(2,2) X';
}
}
}
