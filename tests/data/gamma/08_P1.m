Network 08_P1 {
Layer L08 {
Type: CONV
Dimensions { K: 256, C: 64, Y: 56, X: 56, R: 1, S: 1 }
Dataflow {
TemporalMap(1,1) S;
TemporalMap(48,48) C;
TemporalMap(2,2) X';
TemporalMap(32,32) Y';
SpatialMap(1,1) K;
TemporalMap(1,1) R;
Cluster(1,P);
TemporalMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(29,29) Y';
TemporalMap(1,1) S;
TemporalMap(1,1) R;
SpatialMap(1,1) K;
}
}
}
