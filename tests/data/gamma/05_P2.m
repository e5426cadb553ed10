Network 05_P2 {
Layer L05 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 56, X: 56, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
SpatialMap(2,2) K;
TemporalMap(3,3) R;
TemporalMap(6,6) Y';
TemporalMap(23,23) C;
TemporalMap(56,56) X';
Cluster(24,P);
SpatialMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(1,1) K;
TemporalMap(1,1) Y';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
}
}
}
