Network 09_P1 {
Layer L09 {
Type: CONV
Dimensions { K: 144, C: 24, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
TemporalMap(24,24) C;
TemporalMap(31,31) X';
TemporalMap(4,4) Y';
TemporalMap(1,1) R;
SpatialMap(1,1) K;
TemporalMap(1,1) S;
Cluster(1,P);
TemporalMap(1,1) C;
TemporalMap(1,1) R;
TemporalMap(27,27) X';
TemporalMap(1,1) S;
TemporalMap(1,1) K;
SpatialMap(1,1) Y';
}
}
}
